//===- TorchOp.h - the kernel as a PyTorch custom op ------------*- C++ -*-===//
#ifndef PALLAS_DRIVER_TORCHOP_H
#define PALLAS_DRIVER_TORCHOP_H

#include "pallas/Driver/Artifact.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/Location.h"

namespace mlir::pallas {

/// `--emit torch` (host and CUDA targets): `NAME_torch.py`, which registers
/// the kernel as the `torch.library` custom op `pallasc::NAME`, with a CUDA
/// implementation over a CUDA build's cubins (the driver API, torch's
/// current stream) and a CPU one over a host build's shared object, and a
/// fake implementation for torch.compile. A located error for other
/// targets and for kernels whose outputs alias inputs.
LogicalResult addTorchArtifacts(Location loc, const LaunchSpec &spec, TargetKind kind,
                                std::vector<Artifact> &artifacts);

} // namespace mlir::pallas

#endif
