//===- Registration.h - dialects and passes the tools know ------*- C++ -*-===//
#ifndef PALLAS_DRIVER_REGISTRATION_H
#define PALLAS_DRIVER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace pallas {

/// The pallas dialect, the upstream dialects kernels use and the lowering
/// pipelines need, and LLVM IR translation.
void registerPallasDialects(DialectRegistry &registry);
/// Registers every backend built into this binary (Backends.def) with
/// the backend registry (Backend.h), once.
void registerBuiltinBackends();
/// Pallas passes and pipelines (and the upstream passes), for pallas-opt and
/// for textual pipelines.
void registerAllPallasPasses();

} // namespace pallas
} // namespace mlir

#endif
