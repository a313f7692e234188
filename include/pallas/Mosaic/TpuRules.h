//===- TpuRules.h - what a launch must satisfy to run on a TPU --*- C++ -*-===//
#ifndef PALLAS_MOSAIC_TPURULES_H
#define PALLAS_MOSAIC_TPURULES_H

#include "pallas/Dialect/Pallas.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

namespace mlir::pallas {

/// What the kernel keeps in VMEM and SMEM at once, in bytes.
struct TpuMemoryUse {
  int64_t vmem = 0;
  int64_t smem = 0;
  /// The VMEM limit the kernel is checked against (vmem_limit_bytes, or
  /// the target's default scoped limit).
  int64_t vmemLimit = 0;
};

/// Checks the rules Mosaic and JAX's Pallas TPU lowering impose on blocks
/// and memory, reporting each violation at the spec entry it concerns,
/// naming the operand:
/// - the last two block dims divisible by (sublanes, lanes), e.g. (8, 128),
///   or equal to the array's; rank-1 blocks equal to the array, a multiple
///   of sublanes x lanes, or a power of two of at least one lane tile;
/// - blocks in memory space `any` (and every block when there is no grid)
///   are the whole array at block index 0;
/// - no 64-bit or rank-0 arrays;
/// - blocks (double-buffered when they move), scratch and scoped refs fit
///   the VMEM limit, which itself fits the chip's VMEM; SMEM likewise.
/// `spec` is the vmap-applied spec the kernel's attributes came from.
FailureOr<TpuMemoryUse> checkTpuRules(KernelOp kernel, const LaunchSpec &spec,
                                      const TargetDescription &target);

} // namespace mlir::pallas

#endif
