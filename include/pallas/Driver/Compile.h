//===- Compile.h - the compilation pipeline, kernel to artifacts -*- C++ -*-===//
#ifndef PALLAS_DRIVER_COMPILE_H
#define PALLAS_DRIVER_COMPILE_H

#include "pallas/Driver/Artifact.h"
#include "pallas/Driver/CompileOptions.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace mlir::pallas {

/// MLIR's parser sizes a table by the result number of a use like `%r#N`
/// before it checks N against the op: a huge N exhausts memory. The
/// largest result number a kernel may use.
constexpr uint64_t kMaxResultNumber = 1u << 16;

/// A use of a result number above kMaxResultNumber in a kernel's text.
struct HugeResultNumber {
  llvm::StringRef name; ///< the value's name (`%r`), in the text
  unsigned line = 0;    ///< where its `%` is
  unsigned column = 0;
};

/// The first use in `text` of a result number above kMaxResultNumber.
std::optional<HugeResultNumber> findHugeResultNumber(llvm::StringRef text);

/// compile() in a fresh context that knows every dialect and pass pallasc
/// uses, its diagnostics printed to stderr with the source lines quoted:
/// what the command-line tools run.
/// `inputs`, when given, receives every file the compilation read (the
/// kernel, the spec, and what the backend read), for a depfile.
LogicalResult compileWithDiagnostics(const CompileOptions &options,
                                     std::vector<Artifact> &artifacts,
                                     std::vector<std::string> *inputs = nullptr);

/// Parses, checks, expands and lowers the kernel for the requested target,
/// collecting every artifact (manifest included) in memory. Diagnostics go
/// to `ctx`'s handler; `sourceMgr` owns the input buffers so that they can
/// be quoted.
LogicalResult compile(MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
                      const CompileOptions &options,
                      std::vector<Artifact> &artifacts,
                      std::vector<std::string> *inputs = nullptr);

} // namespace mlir::pallas

#endif
