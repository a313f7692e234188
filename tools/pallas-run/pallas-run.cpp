//===- pallas-run.cpp - compile and run a kernel on .npy arrays -----------===//
//
//   pallas-run KERNEL.mlir --spec SPEC.json --target host
//              --inputs A.npy ... --outputs O.npy ...
//
// Compiles with pallasc's pipeline into a temporary directory and runs the
// result through the same launcher as pallas-launch.
//
//===----------------------------------------------------------------------===//
#include "Launcher.h"

#include "pallas/Driver/Compile.h"
#include "pallas/Driver/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include "CommandLine.h"

using namespace mlir;
using namespace mlir::pallas;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  CLI::App app{"pallas-run: compile a Pallas kernel and run it on .npy arrays"};
  app.set_version_flag("--version", std::string("pallas-run ") + PALLAS_VERSION);
  CompileOptions options;
  options.target = "host";
  options.hostCpu = "native";
  pallas_rt::LaunchRequest request;
  std::string keep;
  app.add_option("kernel", options.kernelFile, "kernel (.mlir)")->required();
  app.add_option("--spec", options.specFile, "launch spec (.json)")->required();
  app.add_option("-t,--target", options.target, "target (default: host)");
  app.add_option("--inputs", request.inputs, "input arrays in spec order");
  app.add_option("--outputs", request.outputs, "output files in spec order");
  app.add_option("--threads", request.threads, "host threads (default: all CPUs)");
  app.add_option("--host-cpu", options.hostCpu, "CPU to compile for (default: native)");
  app.add_option("--keep", keep, "also keep the compiled artifacts in this directory");
  if (std::optional<int> code = pallas_rt::parseCommandLine(app, argc, argv, "pallas-run"))
    return *code;

  std::vector<Artifact> artifacts;
  if (failed(compileWithDiagnostics(options, artifacts)))
    return 1;

  SmallString<128> dir;
  if (!keep.empty()) {
    dir = keep;
  } else if (std::error_code ec =
                 llvm::sys::fs::createUniqueDirectory("pallas-run", dir)) {
    llvm::errs() << "pallas-run: error: cannot create a temporary directory: "
                 << ec.message() << "\n";
    return 1;
  }
  if (failed(writeArtifacts(dir, artifacts, llvm::errs())))
    return 1;
  request.artifactDir = dir.str().str();
  std::string error;
  bool ok = pallas_rt::launch(request, error);
  if (keep.empty())
    llvm::sys::fs::remove_directories(dir);
  if (!ok) {
    llvm::errs() << "pallas-run: error: " << error << "\n";
    return 1;
  }
  return 0;
}
