//===- SharedLayouts.h - tiles in shared memory on CUDA ---------*- C++ -*-===//
//
// How tiles lie in shared memory: the byte layouts the kinds of
// #pallas_gpu.shared (include/pallas/Gpu/GpuAttrs.td) stand for, which kind
// a tensor-core dot reads each operand in, and which tiles go there as
// they are (a K-major B, an accumulator in the swizzle the TMA reads).
// pallas-stage-loads and pallas-async-copies size and place buffers by
// them; convert-tile-to-nvvm reads and writes by them.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_DIALECT_SHAREDLAYOUTS_H
#define PALLAS_TARGETS_CUDA_DIALECT_SHAREDLAYOUTS_H

#include "pallas/Gpu/Gpu.h"
#include "pallas/Tile/Tile.h"

#include <optional>

namespace mlir::pallas::cuda {

struct SlotCoordinates;

/// Bytes an element takes in shared memory.
int64_t smemElementBytes(Type elem);

/// How a tensor-core dot lays out an operand tile [d0, d1] in shared
/// memory. For wgmma: with the 128-byte swizzle where rows are a multiple
/// of 128 bytes (`swizzled`: columns of 128-byte-wide atoms, each row of
/// an atom 128 contiguous bytes whose 16-byte chunks are permuted by XOR
/// with row % 8; atoms `atomColumnBytes` apart), else as core matrices (8
/// rows x 16 bytes each, stored contiguously, `rowGroupBytes` apart per 8
/// rows and `colGroupBytes` apart per 16 bytes of a row). For mma.sync:
/// row-major with rows `rowBytes` apart (padded for its fragment loads).
/// Either way 16 bytes of a row from a multiple of 16 bytes on are
/// contiguous.
struct OperandSmemLayout {
  bool swizzled = false;
  /// The swizzle's atom width: 128 (wgmma's), or 64 (swizzle_64b, tiles
  /// of 64-byte rows only threads and the TMA access).
  int64_t swizzleBytes = 128;
  int64_t atomColumnBytes = 0;
  bool coreMatrices = false;
  int64_t rowGroupBytes = 0, colGroupBytes = 0;
  int64_t rowBytes = 0;
  int64_t elemBytes = 0;
  /// The whole tile, a multiple of 16.
  int64_t bytes = 0;
  /// The byte offset (i32) of element (`row`, `col`). This and the next
  /// two build addresses for convert-tile-to-nvvm
  /// (TileToNVVM/DotOperands.cpp).
  Value offsetOf(OpBuilder &b, Location loc, Value row, Value col) const;
  /// The address (!llvm.ptr<3>) of the element at `coords` (i32 row and
  /// column) of the tile at `base`.
  Value addressOf(OpBuilder &b, Location loc, Value base, ArrayRef<Value> coords) const;
  /// The addresses of a thread's slots 0, step, 2 step, ... of the tile at
  /// `base`: computed in full for one slot of each class the layout repeats
  /// with (rows 8 apart, 128-byte columns when swizzled), each other slot a
  /// constant away from its class's (where the slots' shifts are known and
  /// `shifted`; else each in full).
  SmallVector<Value> slotAddresses(OpBuilder &b, Location loc, Value base,
                                   const SlotCoordinates &slots, int64_t step,
                                   bool shifted = true) const;
  /// How many bytes further the element `rows` rows below and `cols`
  /// columns right of another one lies, where that does not depend on the
  /// element (negative shifts too).
  std::optional<int64_t> shiftBytes(int64_t rows, int64_t cols) const;
  std::optional<int64_t> rowShiftBytes(int64_t rows) const { return shiftBytes(rows, 0); }
  /// How many of a thread's `vec` consecutive elements (a blocked chunk) of
  /// a tile with rows of `cols` one shared-memory access moves: the whole
  /// chunk where it stays within a row and, swizzled or as core matrices,
  /// within 16 bytes; else one element. Such an access is aligned to
  /// accessAlignment(n) bytes.
  int64_t accessElements(int64_t vec, int64_t cols) const;
  int64_t accessAlignment(int64_t n) const { return std::min<int64_t>(n * elemBytes, 16); }
};

/// The byte layout of `tile` (its shape; its encoding is ignored) in
/// shared memory as `kind` (#pallas_gpu.shared) says.
OperandSmemLayout operandSmemLayout(RankedTensorType tile, pgpu::SharedLayoutKind kind);
/// The layout a tile with a #pallas_gpu.shared encoding has (padded rows
/// without one).
OperandSmemLayout sharedLayoutOf(RankedTensorType tile);
/// wgmma's kind for `tile` (either operand: A K-major, B MN-major):
/// swizzled where it can be, else core matrices.
pgpu::SharedLayoutKind wgmmaOperandKind(RankedTensorType tile);
OperandSmemLayout wgmmaOperandLayout(RankedTensorType tile);
/// Row-major with rows padded by 16 bytes (mma.sync).
OperandSmemLayout paddedRowLayout(RankedTensorType tile);
/// The kind of layout `dot` (by its result's encoding) reads operand
/// `index` in.
pgpu::SharedLayoutKind dotOperandKind(tt::DotOp dot, unsigned index);

/// The transpose that gives a tensor-core dot its B as [K, N] from a
/// K-major [N, K] tile (`tt.trans` of a 2-D tensor: bf16/f16, or f8 for
/// wgmma), which the dot reads as it is (wgmma: no transpose flag;
/// mma.sync: ldmatrix without .trans); null otherwise.
tt::TransOp kMajorB(tt::DotOp dot);

/// The transpose that gives a wgmma dot its A as [M, K] from an MN-major
/// [K, M] tile (`tt.trans` of a 2-D bf16/f16 tensor), which wgmma reads as
/// it is with its transpose flag for A (laid out and walked as an MN-major
/// B); null otherwise.
tt::TransOp mnMajorA(tt::DotOp dot);

/// Whether writeAccumulatorSwizzled (TileToNVVM/Patterns.h) takes `src`: a
/// tensor-core accumulator, 2-D, 16- or 32-bit elements, rows a multiple of
/// 128 bytes.
bool swizzlableAccumulator(RankedTensorType src);

} // namespace mlir::pallas::cuda

#endif
