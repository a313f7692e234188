//===- LauncherDetail.h - pieces shared by the launch paths -----*- C++ -*-===//
#ifndef PALLAS_RUNTIME_LAUNCHERDETAIL_H
#define PALLAS_RUNTIME_LAUNCHERDETAIL_H

#include "Launcher.h"
#include "Npy.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pallas_rt {
namespace detail {

/// A parsed manifest or a part of one; objects keep the order of their keys,
/// so that messages list them as the manifest does.
using Json = nlohmann::ordered_json;

/// Thrown by the manifest accessors below; launch() turns it into its error.
struct ManifestError {
  std::string message;
};

/// The member `key` of `object` (`where` names the object in messages).
const Json &member(const Json &object, const std::string &key,
                   const std::string &where);
std::string getString(const Json &object, const std::string &key,
                      const std::string &where);
int64_t getInt(const Json &object, const std::string &key,
               const std::string &where);
std::vector<int64_t> getInts(const Json &object, const std::string &key,
                             const std::string &where);

/// The kernel's arrays, one per manifest parameter in manifest order: inputs
/// as read, outputs poisoned or (when aliased) a copy of their input.
struct KernelBuffers {
  std::vector<NpyArray> arrays;
  /// Per parameter: the parameter whose array backs it. An input that an
  /// output aliases is backed by that output's array; all others by their own.
  std::vector<size_t> backing;
  /// Parameter indices of the outputs, in order.
  std::vector<size_t> outputs;
  /// Symbolic sizes (`manifest.sizes`), in order, as bound from the shapes
  /// of the input arrays.
  std::vector<std::string> sizeNames;
  std::vector<int64_t> sizes;
};

/// Grid extents from `list` (numbers and size expressions over the sizes
/// bound in `b`): false with `error` set where one is outside [1, `limits`]
/// (per entry; the last limit repeats), true otherwise.
bool evaluateExtents(const Json &list, const std::string &where, const KernelBuffers &b,
                     const std::vector<int64_t> &limits, std::vector<int64_t> &out,
                     std::string &error);

/// Runs a CUDA artifact (`manifest.target_kind` == "cuda"); on return the
/// output arrays in `buffers` hold the results.
bool launchCuda(const Json &manifest, const std::string &manifestPath,
                const LaunchRequest &request, KernelBuffers &buffers,
                LaunchTiming *timing, std::string &error);

} // namespace detail
} // namespace pallas_rt

#endif
