//===- RingAccess.h - ring buffers and tensor maps, for the patterns -*- C++ -*-===//
//
// What the patterns over rings share (RingLowering.cpp defines them): where
// a ring's buffer lies, and which tensor map and box a TMA copy of a tile
// uses. The ring patterns of pallas-stage-loads and the patterns of kernels
// that schedule their own copies (UserScheduleLowering.cpp) both read them.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_RINGACCESS_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_RINGACCESS_H

#include "TileToNVVM/SimtState.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas::cuda {

/// The placement of the ring `ring` (a pallas_gpu.alloc_ring result), or
/// null.
const RingPlacement *placementOf(Value ring, const SimtState &s);
/// The address of buffer `slot` (i32) of the ring at `ringOffset` (i32).
Value slotAddress(OpBuilder &b, Location loc, const SimtState &s, Value ringOffset, Value slot,
                  const RingPlacement &p);

/// The address of column `col` (i32, elements; a multiple of an atom
/// column) of the buffer at `buffer` (a column read: ring_read with `col`).
Value columnAddress(OpBuilder &b, Location loc, Value buffer, Value col, const RingPlacement &p);

/// A ring op's buffer: its placement and address (converted ring and slot
/// operands), or an error on the op.
template <typename Op, typename Adaptor>
FailureOr<std::pair<const RingPlacement *, Value>>
bufferOf(Op op, Adaptor a, const SimtState &s, OpBuilder &b) {
  const RingPlacement *p = placementOf(op.getRing(), s);
  if (!p)
    return op.emitError("internal error: a ring of unknown place"), failure();
  return std::make_pair(p, slotAddress(b, op.getLoc(), s, a.getRing(), a.getSlot(), *p));
}

/// A TMA op's tensor map: the attribute, the kernel's CUtensorMap
/// parameter and the base address (i64) of the array it views.
struct KernelTensorMap {
  pgpu::TensorMapAttr map;
  Value param, arrayBase;
};
FailureOr<KernelTensorMap> kernelTensorMap(Operation *op, int64_t index, const SimtState &state);

/// One box per 128-byte atom column of a swizzled tile of `cols` columns
/// at `buffer` (!llvm.ptr<3>) laid out as `layout`, whose first element is
/// at box coordinates `origin` (column, row; i32) of `m`'s view:
/// `copy(smem, coords)` issues box j between the atom's address and
/// (column + j * box columns, row). With `clusterAddress` the address is
/// the CTA's shared memory addressed as the cluster's (!llvm.ptr<7>, a
/// copy's destination).
void forEachBox(OpBuilder &b, Location loc, const KernelTensorMap &m, Value buffer,
                const OperandSmemLayout &layout, std::pair<Value, Value> origin, int64_t cols,
                bool clusterAddress, function_ref<void(Value, ValueRange)> copy);

/// The box coordinates (column, row; i32) in `m`'s view of the tile of
/// `tile`'s shape whose per-thread pointers (blocked layout) are `ptrs`:
/// the tile's first element follows from the thread's first pointer, as
/// rows are contiguous and a constant step apart (tmaView checked).
FailureOr<std::pair<Value, Value>> boxOrigin(OpBuilder &b, Location loc, Operation *op,
                                             const SimtState &state, const KernelTensorMap &m,
                                             Value ptrs, RankedTensorType tile);

} // namespace mlir::pallas::cuda

#endif
