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
#include "ArgParser.h"
#include "Launcher.h"

#include <cstdio>
#include <iostream>

int main(int argc, char **argv) {
  pallas_rt::ArgParser args(
      "pallas-launch",
      "pallas-launch: run a kernel compiled by pallasc on .npy arrays",
      std::string("pallas-launch ") + PALLAS_VERSION);
  pallas_rt::LaunchRequest request;
  args.positional("artifacts", "pallasc output directory",
                  &request.artifactDir, /*required=*/true);
  args.option("--name", "artifact name (when the directory holds several)",
              &request.name);
  args.list("--inputs", "input arrays in spec order", &request.inputs);
  args.list("--outputs", "output files in spec order", &request.outputs);
  args.option("--threads", "host threads (default: all CPUs)",
              &request.threads, 0);
  args.option("--device", "CUDA device ordinal (default 0)", &request.device,
              0);
  args.option("--time",
              "after the checked launch, time N more (after 3 warm-ups) and "
              "print `time_us median=... min=...`",
              &request.timeRuns, 0);
  if (std::optional<int> code = args.parse(argc, argv))
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
