//===- XlaFfi.h - the kernel as an XLA FFI custom call ----------*- C++ -*-===//
#ifndef PALLAS_DRIVER_XLAFFI_H
#define PALLAS_DRIVER_XLAFFI_H

#include "pallas/Driver/Artifact.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/Location.h"

namespace mlir::pallas {

/// `--emit xla-ffi` (host and CUDA targets): `NAME_xla_ffi.cc`, an XLA FFI
/// handler over the launch header that checks each buffer's dtype and
/// shape, and `NAME_xla_ffi.py`, which registers the built handler with
/// `jax.ffi` and calls it with `jax.ffi.ffi_call` (usable under jax.jit).
/// A located error for other targets.
LogicalResult addXlaFfiArtifacts(Location loc, const LaunchSpec &spec, TargetKind kind,
                                 std::vector<Artifact> &artifacts);

} // namespace mlir::pallas

#endif
