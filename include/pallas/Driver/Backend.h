//===- Backend.h - what a target kind's backend provides --------*- C++ -*-===//
//
// Each targets/<kind>/ folder owns one backend: it lowers the kernel (which
// carries its launch, see LaunchAttributes.h) with its registered pipeline
// and writes the artifacts. The driver (Compile.cpp) picks the backend by
// target kind and adds the manifest.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_BACKEND_H
#define PALLAS_DRIVER_BACKEND_H

#include "pallas/Driver/Compile.h"

namespace mlir::pallas {

/// What the driver hands a backend: the module whose kernel carries its
/// launch, the (vmap-applied) spec that the artifacts' descriptions quote,
/// the targets (one, or several CUDA chips) and the options.
struct BackendInput {
  ModuleOp module;
  const LaunchSpec &spec;
  ArrayRef<TargetDescription> targets;
  const CompileOptions &options;
};

/// Lowers the module and collects the artifacts and the manifest's
/// `launch` entry in `result`.
using Backend = LogicalResult (*)(const BackendInput &in, BackendResult &result);

/// The backend of a target kind.
Backend backendFor(TargetKind kind);

/// The programs along grid `axis` for a manifest: the number, or the size
/// expression launchers evaluate.
nlohmann::json gridExtentJson(const LaunchSpec &spec, unsigned axis);
/// A CUDA or Triton kernel's launch grid x, y, z with symbolic sizes: the
/// leading parallel axes (at most three), 1 past them.
nlohmann::json symbolicLaunchGridJson(const LaunchSpec &spec);

/// The backends, one per target folder.
LogicalResult emitHost(const BackendInput &in, BackendResult &result);
LogicalResult emitTriton(const BackendInput &in, BackendResult &result);
LogicalResult emitCuda(const BackendInput &in, BackendResult &result);
LogicalResult emitMosaic(const BackendInput &in, BackendResult &result);

} // namespace mlir::pallas

#endif
