//===- ThreadSlots.h - where a thread's slots lie in a tensor ---*- C++ -*-===//
//
// Slot i of a thread's vector holds one element of the tensor; which one
// its layout (Dialect/Layouts.h) says. These build, per thread, the
// element indices and coordinates of its slots, for the blocked and the
// tensor-core layouts alike.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_THREADSLOTS_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_THREADSLOTS_H

#include "Dialect/Layouts.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas::cuda {

struct SimtState;

/// The coordinates (i32) in a tensor's shape of each of this thread's
/// slots. Where the layout allows (no slot's offset carries into the next
/// dimension), the thread's first element is unravelled once (`origin`)
/// and each slot is it shifted by constants (`shifts`); else each slot's
/// index is unravelled and `origin` is empty.
struct SlotCoordinates {
  SmallVector<SmallVector<Value>> coords;
  SmallVector<Value> origin;
  SmallVector<SmallVector<int64_t>> shifts;
  size_t size() const { return coords.size(); }
  ArrayRef<Value> operator[](size_t i) const { return coords[i]; }
  auto begin() const { return coords.begin(); }
  auto end() const { return coords.end(); }
};

/// The row-major element index of each of this thread's slots (i32).
SmallVector<Value> slotElementIndices(OpBuilder &b, Location loc,
                                      const SimtState &s, int64_t numElements);
/// Where a thread sits in an mma layout: lane = 4g + q within its warp, and
/// the first row and column of its warp's part of the tensor.
struct MmaThread {
  Value lane, g, q, rowBase, colBase;
};
MmaThread mmaThread(OpBuilder &b, Location loc, const SimtState &s, const MmaLayout &l);
/// Warp `warp`'s place (along M, along N) in the warps' grid of `l`.
std::pair<Value, Value> warpCoordinates(OpBuilder &b, Location loc, Value warp,
                                        const MmaLayout &l);
/// The same for a tensor type in any layout (blocked or mma).
SmallVector<Value> slotElementIndices(OpBuilder &b, Location loc,
                                      const SimtState &s, RankedTensorType type);
/// The coordinates of this thread's slots of a tensor of `type`.
SlotCoordinates slotCoordinates(OpBuilder &b, Location loc, const SimtState &s,
                                RankedTensorType type);
/// The same for a tensor of `shape` in the blocked layout (any encoding).
SlotCoordinates slotCoordinates(OpBuilder &b, Location loc, const SimtState &s,
                                ArrayRef<int64_t> shape);
/// True on the thread that owns its slots (false on replicas).
Value isOwner(OpBuilder &b, Location loc, const SimtState &s,
              int64_t numElements);

} // namespace mlir::pallas::cuda

#endif
