//===- AsyncDots.h - wgmma dots issued without waiting ----------*- C++ -*-===//
//
// What pallas-async-dots (AsyncDots.cpp) does to a turn's dots, which
// pallas-issue-dots-together does to independent dots it puts side by side.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TRANSFORMS_ASYNCDOTS_H
#define PALLAS_TARGETS_CUDA_TRANSFORMS_ASYNCDOTS_H

#include "pallas/Tile/Tile.h"

namespace mlir::pallas::cuda {

/// Issues `dots` without waiting (`pallas_gpu.async`); one
/// `pallas_gpu.dot_wait` at `at`'s insertion point, leaving the `pending`
/// wgmma groups issued after the dots in flight, takes all their results,
/// and every later use reads them through it. Nothing between the dots and
/// the wait may read one.
void issueWithWaitAt(ArrayRef<tt::DotOp> dots, OpBuilder &at, int64_t pending = 0);

/// The same with the wait right after the last dot.
void issueWithOneWait(ArrayRef<tt::DotOp> dots);

/// Whether `v` is a tile a dot reads where it stands in a ring: a
/// ring_read, or a transpose of one.
bool inRing(Value v);

/// Whether `dot` reads B from a ring and A from a ring or the registers:
/// nothing it reads goes through the scratch area, which an exchange may
/// overwrite while the dot is in flight.
bool readsNoScratch(tt::DotOp dot);

} // namespace mlir::pallas::cuda

#endif
