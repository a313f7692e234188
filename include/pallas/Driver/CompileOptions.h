//===- CompileOptions.h - a compile's options, a backend's result -*- C++ -*-===//
//
// The types the driver and the backends share (Backend.h), apart from the
// driver's entry points (Compile.h).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_COMPILEOPTIONS_H
#define PALLAS_DRIVER_COMPILEOPTIONS_H

#include "pallas/Driver/Artifact.h"

#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <mutex>
#include <string>
#include <vector>

namespace mlir::pallas {

struct CompileOptions {
  std::string kernelFile;
  std::string specFile;
  /// One target, or several CUDA targets separated by commas.
  std::string target;
  /// Extra artifacts: "mlir" (the lowered module), "llvm" (LLVM IR).
  std::vector<std::string> emit;
  bool printIRAfterAll = false;
  /// Set by backends that lower once per chip: what each IR dump of
  /// `printIRAfterAll` names as its chip (empty: none).
  std::string irDumpChip;
  /// Where the passes and tools of a compile report their time (the root
  /// scope of `--time-passes`'s report); null: not timed.
  TimingScope *timing = nullptr;
  /// CUDA targets: the libdevice to link (--libdevice, PALLAS_LIBDEVICE);
  /// empty: the one beside ptxas, in its toolkit.
  std::string libdevice;
  /// Host target only: the CPU to generate code for ("native" for this
  /// machine). Empty: the target description's `cpu`.
  std::string hostCpu;
  /// Host target only: "address" instruments the generated code with
  /// AddressSanitizer (load it into an ASan-built launcher).
  std::string sanitize;
  /// sm_90a: warpgroups take turns at a loop's dots (pallas-warpgroup-turns).
  /// Off keeps them in step: for tools that cannot follow named barriers
  /// (compute-sanitizer's racecheck).
  bool warpgroupTurns = true;
  /// sm_90a: copy the blocks of mbarrier-handed rings with the TMA (bulk
  /// tensor copies through tensor maps the launch code builds), issued by
  /// a producer warpgroup (the kernel runs a warpgroup more than
  /// num_warps) where every chip compiled for can have one (builds for
  /// wgmma chips alone): by default there; with `tma`, also without one
  /// (the reading threads issue them); with `noTma`, nowhere.
  bool tma = false;
  bool noTma = false;
  bool warpSpecialize = true;
  /// sm_90a: kernels with a producer warpgroup and more programs than the
  /// chip has SMs run one CTA per SM looping over the programs, unless the
  /// spec's compiler_params.persistent says otherwise; false: never.
  bool persistent = true;
  /// Chains: a kernel whose output a scan recomputes what another scan of
  /// it computes (JAX's flash attention dQ) takes that output as atomic
  /// adds of the other scan instead (ChainScanFusion.h): "auto" where that
  /// is faster on the target, "always", or "never" (as written).
  std::string scanFusion = "auto";
  /// In-memory sources: when set, the kernel's and spec's text, named by
  /// kernelFile and specFile in diagnostics (a chain's rewritten kernels).
  std::string kernelText, specText;
  /// sm_90a, Pallas:MGPU kernels: "kernel" lowers them with their own
  /// schedule (their copies, barriers and waits where they wrote them;
  /// an error where that is not possible yet), "in-order" runs their ops
  /// in program order with every copy complete at issue (the CUDA pipeline
  /// then stages loads as for pallas_call kernels), "auto" the first where
  /// every chip has wgmma and the kernel allows it, else the second.
  std::string plgpuSchedule = "auto";
  /// Lower through every pass but make no machine code (no LLVM code
  /// generation, no ptxas): what the whole-driver fuzzer runs. The
  /// artifacts that come out hold no code.
  bool stopBeforeCodegen = false;
  /// How diagnostics are written to stderr: "text" (file:line:col: error:
  /// ..., with the source line) or "json" (one object per line: severity,
  /// file, line, column, message, notes), as build tools and IDEs read.
  std::string diagnosticsFormat = "text";
  /// -v: each tool pallasc runs (ptxas, the C compiler) is named on stderr
  /// with its arguments, and each file written or removed.
  bool verbose = false;
  /// --quiet: warnings are not reported (errors are).
  bool quiet = false;
};

/// What a backend hands back: its files and what the manifest should say
/// about launching them.
struct BackendResult {
  std::vector<Artifact> artifacts;
  nlohmann::json launch = nlohmann::json::object();
  /// Files the backend read besides the kernel and the spec (libdevice).
  std::vector<std::string> inputs;
};

/// With `options.verbose`, names the command `args` (program first) on
/// stderr, as `pallasc: running: ARGS...`.
/// (One write per line: the chips of a build run their tools side by side.)
inline void reportCommand(const CompileOptions &options, llvm::ArrayRef<llvm::StringRef> args) {
  if (!options.verbose)
    return;
  std::string line = "pallasc: running:";
  for (llvm::StringRef a : args)
    line += " " + a.str();
  line += "\n";
  static std::mutex lock;
  std::lock_guard<std::mutex> hold(lock);
  llvm::errs() << line;
}

} // namespace mlir::pallas

#endif
