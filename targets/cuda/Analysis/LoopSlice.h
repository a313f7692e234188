//===- LoopSlice.h - what a loop body computes from its induction variable -*- C++ -*-===//
//
// Loop transformations that move work between iterations (loads issued
// ahead, a stage deferred to the next iteration) may recompute a value for
// another iteration only if the body computes it from the induction
// variable and loop invariants alone.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_LOOPSLICE_H
#define PALLAS_TARGETS_CUDA_LOOPSLICE_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::pallas::cuda {

/// Adds to `slice` the ops of `loop`'s body that compute `values`; true
/// when they all are pure ops without regions (and not dots: recomputing
/// one is no index computation) reading only the induction variable, loop
/// invariants and each other. With `tableLoads`, also loads of at most
/// one dimension (an index table: paged attention's block table), which
/// the caller knows the loop does not write. On false, `slice` may hold
/// part of them.
bool collectIndexSlice(scf::ForOp loop, ValueRange values, llvm::SetVector<Operation *> &slice,
                       bool tableLoads = false);

/// Whether `op` is in a loop that holds no other loop (a main loop, not a
/// persistent CTA's loop over its programs).
bool inInnermostLoop(Operation *op);

} // namespace mlir::pallas::cuda

#endif
