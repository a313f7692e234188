//===- pallas-launch.cpp - run a compiled kernel, no compiler needed ------===//
//
//   pallas-launch ARTIFACT_DIR [--name NAME] --inputs A.npy ... --outputs O.npy ...
//
//===----------------------------------------------------------------------===//
#include "Launcher.h"

#include "CommandLine.h"
#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"pallas-launch: run a kernel compiled by pallasc on .npy arrays"};
  app.set_version_flag("--version", std::string("pallas-launch ") + PALLAS_VERSION);
  pallas_rt::LaunchRequest request;
  app.add_option("artifacts", request.artifactDir, "pallasc output directory")
      ->required();
  app.add_option("--name", request.name, "artifact name (when the directory holds several)");
  app.add_option("--inputs", request.inputs, "input arrays in spec order");
  app.add_option("--outputs", request.outputs, "output files in spec order");
  app.add_option("--threads", request.threads, "host threads (default: all CPUs)");
  if (std::optional<int> code = pallas_rt::parseCommandLine(app, argc, argv, "pallas-launch"))
    return *code;
  std::string error;
  if (!pallas_rt::launch(request, error)) {
    std::cerr << "pallas-launch: error: " << error << "\n";
    return 1;
  }
  return 0;
}
