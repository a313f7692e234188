//===- Launcher.h - running compiled artifacts without the compiler -*- C++ -*-===//
//
// Loads what pallasc wrote (manifest + shared library), feeds it .npy inputs
// in spec order and writes .npy outputs. Needs no MLIR or LLVM, so it runs
// on machines that only have a C++ compiler (and, for GPU targets, CUDA).
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
};

/// Runs the kernel. Returns false with a message in `error` on any problem
/// (missing files, shape or dtype mismatches, load failures).
bool launch(const LaunchRequest &request, std::string &error);

} // namespace pallas_rt

#endif
