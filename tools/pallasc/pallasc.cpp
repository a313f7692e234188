//===- pallasc.cpp - the Pallas ahead-of-time compiler --------------------===//
//
//   pallasc KERNEL.mlir --spec SPEC.json --target T [--emit KIND] -o OUTDIR
//           [--depfile FILE.d]
//
// Every user error is a located `error:` and exit code 1, with nothing
// written to OUTDIR.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Chain.h"
#include "pallas/Driver/Compile.h"
#include "pallas/Driver/Registration.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "CommandLine.h"

using namespace mlir;
using namespace mlir::pallas;

static void listTargets(llvm::raw_ostream &os) {
  os << llvm::format("%-10s %-7s %s\n", "target", "kind", "description");
  for (const TargetDescription &t : builtinTargets()) {
    os << llvm::format("%-10s %-7s %s\n", t.name.c_str(),
                       targetKindName(t.kind).str().c_str(),
                       t.description.c_str());
    std::string details;
    for (auto &[key, value] : t.fields)
      if (key != "name" && key != "kind" && key != "description")
        details += "  " + key + "=" + value;
    for (auto &[key, values] : t.lists) {
      details += "  " + key + "=[";
      for (size_t i = 0; i < values.size(); ++i)
        details += (i ? "," : "") + values[i];
      details += "]";
    }
    os << "          " << details << "\n";
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  CLI::App app{"pallasc: ahead-of-time compiler for Pallas kernels"};
  app.footer("Environment:\n"
             "  PALLAS_PTXAS         CUDA targets: the ptxas to run (default "
             "/usr/local/cuda/bin/ptxas, then PATH); libdevice is read from its toolkit\n"
             "  PALLAS_LIBDEVICE     CUDA targets: the libdevice to link where --libdevice "
             "names none\n"
             "  PALLAS_HOST_THREADS  host artifacts, at run time: threads that run the "
             "programs (default: the CPUs)\n"
             "  NO_COLOR             set (to anything): no color in diagnostics unless "
             "--color=always\n");
  app.set_version_flag("--version", std::string("pallasc ") + PALLAS_VERSION +
                                        " (LLVM/MLIR " LLVM_VERSION_STRING ")");
  CompileOptions options;
  std::string outDir;
  bool list = false;
  app.add_option("kernel", options.kernelFile,
                 "kernel in the pallas dialect (.mlir), or a chain manifest (chain.json, "
                 "from pallasc_jax --vjp): its kernels, each with its spec");
  app.add_option("--spec", options.specFile, "launch spec (.json)");
  app.add_option("-t,--target", options.target,
                 "target name (see --list-targets); CUDA targets may be "
                 "combined: sm_80,sm_90a");
  app.add_option("--emit", options.emit,
                 "extra artifacts: mlir (lowered module), llvm (LLVM IR), xla-ffi (an XLA "
                 "FFI handler and its jax.ffi binding), torch (a torch.library custom op), "
                 "torch-xla (a torch_xla TPU custom call); xla-ffi and torch for host and "
                 "CUDA targets, torch-xla for TPU targets")
      ->delimiter(',')
      ->check(CLI::IsMember({"mlir", "llvm", "xla-ffi", "torch", "torch-xla"}));
  app.add_option("-o,--output", outDir, "output directory (created if missing)");
  std::string depfile;
  app.add_option("--depfile", depfile,
                 "also write a Makefile-syntax depfile here: the manifest depends on "
                 "every file read (kernel, spec, libdevice)");
  app.add_flag("--list-targets", list, "print the known targets and exit");
  std::string color = "auto";
  app.add_option("--color", color,
                 "color in diagnostics: auto (where stderr is a terminal and NO_COLOR is "
                 "unset; the default), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--diagnostics-format", options.diagnosticsFormat,
                 "how errors are written to stderr: text (file:line:col: error: ..., the "
                 "default) or json (one object a line: severity, file, line, column, "
                 "message, notes)")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option *verbose = app.add_flag(
      "-v,--verbose", options.verbose,
      "name each tool run (ptxas, the C compiler) with its arguments and each file written, "
      "to stderr");
  app.add_flag("-q,--quiet", options.quiet, "report no warnings (errors still are)")
      ->excludes(verbose);
  app.add_flag("--print-ir-after-all", options.printIRAfterAll,
               "print the module after every pass, to stderr");
  bool timePasses = false;
  app.add_flag("--time-passes", timePasses,
               "report the time each pass (and ptxas, per chip) took, to stderr");
  app.add_option("--libdevice", options.libdevice,
                 "CUDA targets: the libdevice bitcode to link (math functions without an "
                 "instruction); default: $PALLAS_LIBDEVICE, then the one beside ptxas "
                 "(TOOLKIT/nvvm/libdevice/libdevice.10.bc)");
  app.add_option("--host-cpu", options.hostCpu,
                 "host target: CPU to generate code for (default from "
                 "targets/host.yaml; 'native' for this machine)");
  app.add_option("--sanitize", options.sanitize,
                 "host target: instrument the kernel code ('address')")
      ->check(CLI::IsMember({"address"}));
  bool noTurns = false;
  app.add_flag("--no-warpgroup-turns", noTurns,
               "sm_90a: keep warpgroups in step at a loop's dots (no ping-pong); for tools "
               "that cannot follow named barriers, such as compute-sanitizer's racecheck");
  app.add_flag("--tma", options.tma,
               "sm_90a: copy staged blocks with the TMA where they allow it, also without "
               "a producer warpgroup (builds for sm_90a alone do by default, with one)");
  app.add_flag("--no-tma", options.noTma,
               "sm_90a: copy staged blocks with cp.async only (no tensor maps, no "
               "producer warpgroup)");
  bool noProducer = false;
  app.add_flag("--no-warp-specialize", noProducer,
               "sm_90a: the threads reading TMA-copied blocks issue the copies "
               "themselves, instead of a producer warpgroup (implies --tma)");
  bool noPersistent = false;
  app.add_flag("--no-persistent", noPersistent,
               "sm_90a: one CTA per program, also where a kernel's CTAs would loop over its "
               "programs (compiler_params.persistent)");
  app.add_option("--scan-fusion", options.scanFusion,
                 "chains: a kernel whose output one scan recomputes from what another scan "
                 "of it computes (JAX's flash attention dQ) takes that output from the other "
                 "scan's float32 atomic adds, with a kernel zeroing it before and one casting "
                 "it after: 'auto' (default) where that is faster on the target (CUDA: 8 "
                 "warps and 4096 or more dQ elements a step), 'always', 'never' (every "
                 "kernel as written)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--plgpu-schedule", options.plgpuSchedule,
                 "sm_90a, Pallas:MGPU kernels: 'kernel' keeps the kernel's own copies, "
                 "barriers and waits (an error where that is not possible yet); 'in-order' "
                 "runs its ops in order, copies complete at issue, and stages loads as for "
                 "pallas_call kernels; 'auto' (default) the first where possible")
      ->check(CLI::IsMember({"auto", "kernel", "in-order"}));
  if (std::optional<int> code = pallas_rt::parseCommandLine(app, argc, argv, "pallasc"))
    return *code;
  // NO_COLOR (no-color.org): any value turns auto off.
  // (Diagnostics color through llvm::WithColor, whose detection decides.)
  const char *noColor = std::getenv("NO_COLOR");
  if (color == "always")
    llvm::WithColor::setAutoDetectFunction([](const llvm::raw_ostream &) { return true; });
  else if (color == "never" || (noColor && *noColor))
    llvm::WithColor::setAutoDetectFunction([](const llvm::raw_ostream &) { return false; });
  if (options.libdevice.empty())
    if (const char *env = std::getenv("PALLAS_LIBDEVICE"); env && *env)
      options.libdevice = env;
  options.warpgroupTurns = !noTurns;
  options.warpSpecialize = !noProducer;
  options.persistent = !noPersistent;
  options.tma |= noProducer;
  if (options.tma && options.noTma) {
    llvm::errs() << "pallasc: error: --no-tma contradicts --tma and --no-warp-specialize\n";
    return 1;
  }
  if (list) {
    listTargets(llvm::outs());
    return 0;
  }
  auto usage = [&](const char *what) {
    llvm::errs() << "pallasc: error: " << what << "\nusage: pallasc KERNEL.mlir "
                 << "--spec SPEC.json --target T -o OUTDIR (see --help)\n";
    return 1;
  };
  if (options.kernelFile.empty())
    return usage("no kernel file given");
  if (isChainManifest(options.kernelFile)) {
    // A chain manifest (pallasc_jax --vjp): each kernel with its own spec.
    if (!options.specFile.empty())
      return usage("a chain manifest names each kernel's spec: no --spec");
    if (!depfile.empty())
      return usage("--depfile takes a kernel, not a chain manifest");
    if (options.target.empty())
      return usage("no target given (--target; see --list-targets)");
    if (outDir.empty())
      return usage("no output directory given (-o)");
    std::vector<Artifact> artifacts;
    if (failed(compileChain(options, options.kernelFile, artifacts)) ||
        failed(writeArtifacts(outDir, artifacts, llvm::errs())))
      return 1;
    if (options.verbose)
      for (const Artifact &a : artifacts) {
        SmallString<256> path(outDir);
        llvm::sys::path::append(path, a.filename);
        llvm::errs() << "pallasc: wrote " << path << "\n";
      }
    return 0;
  }
  if (options.specFile.empty())
    return usage("no launch spec given (--spec)");
  if (options.kernelFile == "-" && options.specFile == "-")
    return usage("the kernel and the spec cannot both be read from stdin ('-')");
  if (options.target.empty())
    return usage("no target given (--target; see --list-targets)");
  if (outDir.empty())
    return usage("no output directory given (-o)");

  std::vector<Artifact> artifacts;
  std::vector<std::string> inputs;
  {
    // The report goes to stderr when the timing manager goes away.
    mlir::DefaultTimingManager timingManager;
    timingManager.setEnabled(timePasses);
    mlir::TimingScope timing = timingManager.getRootScope();
    if (timePasses)
      options.timing = &timing;
    LogicalResult compiled = compileWithDiagnostics(options, artifacts, &inputs);
    options.timing = nullptr;
    if (failed(compiled))
      return 1;
  }
  // The depfile is written and renamed into place with the artifacts: an
  // error leaves neither behind.
  std::vector<Artifact> besides;
  if (!depfile.empty()) {
    auto manifest =
        llvm::find_if(artifacts, [](const Artifact &a) { return a.kind == "manifest"; });
    SmallString<256> target(outDir);
    llvm::sys::path::append(target, manifest->filename);
    // Make has no way to write a newline in a file name.
    std::vector<std::string> named(inputs);
    named.push_back(target.str().str());
    for (StringRef path : named)
      if (path.contains('\n') || path.contains('\r')) {
        llvm::errs() << "pallasc: error: --depfile: the path '" << path
                     << "' holds a line break, which a Makefile cannot name\n";
        return 1;
      }
    besides.push_back({depfile, depfileText(target, inputs), "depfile"});
  }
  // What a build of the same name for another target left there goes
  // (the old manifest lists it; files changed since stay).
  std::vector<std::string> stale;
  if (auto manifest = llvm::find_if(artifacts, [](const Artifact &a) { return a.kind == "manifest"; });
      manifest != artifacts.end())
    stale = staleArtifacts(outDir, manifest->filename, artifacts);
  if (failed(writeArtifacts(outDir, artifacts, llvm::errs(), besides)))
    return 1;
  if (options.verbose) {
    for (const Artifact &a : artifacts) {
      SmallString<256> path(outDir);
      llvm::sys::path::append(path, a.filename);
      llvm::errs() << "pallasc: wrote " << path << "\n";
    }
    for (const Artifact &a : besides)
      llvm::errs() << "pallasc: wrote " << a.filename << "\n";
  }
  for (const std::string &file : stale)
    if (!llvm::sys::fs::remove(file) && options.verbose)
      llvm::errs() << "pallasc: removed " << file << " (another target's build left it)\n";
  return 0;
}
