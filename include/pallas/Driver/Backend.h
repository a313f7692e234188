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

#include <memory>

namespace mlir::pallas {

class Backend {
public:
  virtual ~Backend() = default;
  /// Lowers `module` for `targets` (one target, or several CUDA chips) and
  /// collects the artifacts and the manifest's `launch` entry in `result`.
  virtual LogicalResult emit(ModuleOp module, const LaunchSpec &spec,
                             ArrayRef<TargetDescription> targets,
                             const CompileOptions &options,
                             BackendResult &result) const = 0;
};

/// The backend of a target kind.
const Backend &backendFor(TargetKind kind);

/// The backends, one per target folder.
std::unique_ptr<Backend> createHostBackend();
std::unique_ptr<Backend> createTritonBackend();
std::unique_ptr<Backend> createCudaBackend();
std::unique_ptr<Backend> createMosaicBackend();

} // namespace mlir::pallas

#endif
