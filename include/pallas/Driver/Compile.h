//===- Compile.h - the compilation pipeline, kernel to artifacts -*- C++ -*-===//
#ifndef PALLAS_DRIVER_COMPILE_H
#define PALLAS_DRIVER_COMPILE_H

#include "pallas/Driver/Artifact.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <nlohmann/json.hpp>

namespace mlir::pallas {

struct CompileOptions {
  std::string kernelFile;
  std::string specFile;
  /// One target, or several CUDA targets separated by commas.
  std::string target;
  /// Extra artifacts: "mlir" (the lowered module), "llvm" (LLVM IR).
  std::vector<std::string> emit;
  bool printIRAfterAll = false;
  /// Host target only: the CPU to generate code for ("native" for this
  /// machine). Empty: the target description's `cpu`.
  std::string hostCpu;
  /// Host target only: "address" instruments the generated code with
  /// AddressSanitizer (load it into an ASan-built launcher).
  std::string sanitize;
};

/// What a backend hands back: its files and what the manifest should say
/// about launching them.
struct BackendResult {
  std::vector<Artifact> artifacts;
  nlohmann::json launch = nlohmann::json::object();
};

/// Prints the whole module after every pass of `pm` when
/// --print-ir-after-all asks for it (the context runs single-threaded
/// then, so that the dumps come in order).
void printIRIfAsked(mlir::PassManager &pm, const CompileOptions &options);

/// Parses, checks, expands and lowers the kernel for the requested target,
/// collecting every artifact (manifest included) in memory. Diagnostics go
/// to `ctx`'s handler; `sourceMgr` owns the input buffers so that they can
/// be quoted.
LogicalResult compile(MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
                      const CompileOptions &options,
                      std::vector<Artifact> &artifacts);

/// The host backend: native object, shared library and C header.
LogicalResult emitHost(ModuleOp module, const LaunchSpec &spec,
                       const TargetDescription &target,
                       const CompileOptions &options, BackendResult &result);

/// The Triton backend: Triton IR (.ttir) and a CUDA launch header.
LogicalResult emitTriton(ModuleOp module, const LaunchSpec &spec,
                         const TargetDescription &target,
                         const CompileOptions &options, BackendResult &result);

/// The CUDA backend: one cubin (and its PTX) per requested architecture and
/// a C launch header embedding them.
LogicalResult emitCuda(ModuleOp module, const LaunchSpec &spec,
                       ArrayRef<TargetDescription> targets,
                       const CompileOptions &options, BackendResult &result);

/// The Mosaic backend (TPU targets): the serialised Mosaic module (.mlirbc)
/// and its tpu_custom_call backend config.
LogicalResult emitMosaic(ModuleOp module, const LaunchSpec &spec,
                         const TargetDescription &target,
                         const CompileOptions &options, BackendResult &result);

} // namespace mlir::pallas

#endif
