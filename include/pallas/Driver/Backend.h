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

/// Lowers `module` for `targets` (one target, or several CUDA chips) and
/// collects the artifacts and the manifest's `launch` entry in `result`.
using Backend = LogicalResult (*)(ModuleOp module, const LaunchSpec &spec,
                                  ArrayRef<TargetDescription> targets,
                                  const CompileOptions &options,
                                  BackendResult &result);

/// The backend of a target kind.
Backend backendFor(TargetKind kind);

/// The backends, one per target folder.
LogicalResult emitHost(ModuleOp, const LaunchSpec &, ArrayRef<TargetDescription>,
                       const CompileOptions &, BackendResult &);
LogicalResult emitTriton(ModuleOp, const LaunchSpec &, ArrayRef<TargetDescription>,
                         const CompileOptions &, BackendResult &);
LogicalResult emitCuda(ModuleOp, const LaunchSpec &, ArrayRef<TargetDescription>,
                       const CompileOptions &, BackendResult &);
LogicalResult emitMosaic(ModuleOp, const LaunchSpec &, ArrayRef<TargetDescription>,
                         const CompileOptions &, BackendResult &);

} // namespace mlir::pallas

#endif
