//===- pallas-launch.cpp - run a compiled kernel, no compiler needed ------===//
//
//   pallas-launch ARTIFACT_DIR [--name NAME] --inputs A.npy ... --outputs O.npy ...
//                 [--threads N] [--device I] [--time N]
//
// Runs host artifacts (a shared library) on the CPU and CUDA artifacts
// (cubins) on an NVIDIA GPU through the driver API. With --time N, N timed
// launches follow the checked one: `time_us median=... min=...` on stdout.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Launcher.h"

#include <cstdio>
#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"pallas-launch: run a kernel compiled by pallasc on .npy arrays"};
  app.set_version_flag("--version", std::string("pallas-launch ") + PALLAS_VERSION);
  pallas_rt::LaunchRequest request;
  app.add_option("artifacts", request.artifactDir, "pallasc output directory")
      ->required();
  app.add_option("--name", request.name,
                 "artifact name (when the directory holds several)");
  app.add_option("--inputs", request.inputs, "input arrays in spec order");
  app.add_option("--outputs", request.outputs, "output files in spec order");
  app.add_option("--threads", request.threads, "host threads (default: all CPUs)")
      ->check(pallas_rt::integerAtLeast(0));
  app.add_option("--device", request.device, "CUDA device ordinal (default 0)")
      ->check(pallas_rt::integerAtLeast(0));
  app.add_option("--time", request.timeRuns,
                 "after the checked launch, time N more (after 3 warm-ups) and "
                 "print `time_us median=... min=...`")
      ->check(pallas_rt::integerAtLeast(0));
  if (std::optional<int> code =
          pallas_rt::parseCommandLine(app, argc, argv, "pallas-launch"))
    return *code;
  std::string error;
  pallas_rt::LaunchTiming timing;
  if (!pallas_rt::launch(request, error, &timing)) {
    std::cerr << "pallas-launch: error: " << error << "\n";
    return 1;
  }
  if (request.timeRuns > 0) {
    char line[128];
    std::snprintf(line, sizeof line, "time_us median=%.3f min=%.3f runs=%zu",
                  timing.median(), timing.min(), timing.micros.size());
    std::cout << line << std::endl;
  }
  return 0;
}
