//===- Launcher.h - running compiled artifacts without the compiler -*- C++ -*-===//
//
// Loads what pallasc wrote (manifest + shared library for host artifacts,
// manifest + cubins for CUDA artifacts), feeds it .npy inputs in spec order
// and writes .npy outputs. Needs no MLIR or LLVM, so it runs on machines that
// only have a C++ compiler (and, for CUDA artifacts, an NVIDIA driver).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_RUNTIME_LAUNCHER_H
#define PALLAS_RUNTIME_LAUNCHER_H

#include <string>
#include <vector>

namespace pallas_rt {

struct LaunchRequest {
  std::string artifactDir;
  /// The artifact name (manifest `name`); empty: the only manifest in the dir.
  std::string name;
  std::vector<std::string> inputs, outputs;
  /// Host threads; 0: PALLAS_HOST_THREADS or all online CPUs.
  int threads = 0;
  /// After the checked launch whose results are written: this many timed
  /// launches (after 3 warm-ups); 0: none.
  int timeRuns = 0;
  /// CUDA device ordinal (CUDA artifacts only).
  int device = 0;
};

/// What the timed launches measured, one entry per launch, in microseconds
/// (CUDA: events around each launch; host: wall clock).
struct LaunchTiming {
  std::vector<double> micros;
  double median() const;
  double min() const;
};

/// Runs the kernel. Returns false with a message in `error` on any problem
/// (missing files, shape or dtype mismatches, load failures, CUDA errors).
bool launch(const LaunchRequest &request, std::string &error);
/// The same; fills `timing` when `request.timeRuns` > 0.
bool launch(const LaunchRequest &request, std::string &error,
            LaunchTiming *timing);

} // namespace pallas_rt

#endif
