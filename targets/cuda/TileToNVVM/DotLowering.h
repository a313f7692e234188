//===- DotLowering.h - tensor-core dots in the conversion -------*- C++ -*-===//
//
// A tt.dot in a tensor-core layout becomes mma.sync (MmaLowering.cpp) or
// wgmma (WgmmaLowering.cpp) reading its operands from shared memory:
// staged there by pallas-stage-loads (RingLowering.cpp finds them), or
// written there from registers first (DotOperands.cpp). The dot pattern
// (SimtDataMovement.cpp) picks the lowering.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_DOTLOWERING_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_DOTLOWERING_H

#include "Dialect/SharedLayouts.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::pallas::cuda {

struct SimtState;

/// An operand as a dot lowering gets it: in registers (blocked layout),
/// or, when pallas-stage-loads staged it, already in shared memory at `smem`
/// in the layout of its dotOperandKind.
struct DotOperand {
  Value regs;
  Value smem;
  /// The tile `regs` and `smem` hold; for B given K-major (`kMajor`, see
  /// kMajorB) it is [N, K], the transpose of the dot's B.
  RankedTensorType tile;
  bool kMajor = false;
  /// A held in the registers of the dot's own accumulator layout
  /// (registerA): the dot reads it from there, nothing goes through shared
  /// memory.
  bool inAccumulatorLayout = false;
  /// With inAccumulatorLayout: f8 A already in wgmma's A-fragment order
  /// (#pallas_gpu.wgmma_f8_a), four bytes a register.
  bool inFragmentOrder = false;
  /// A given MN-major (mnMajorA): `tile` is [K, M], the transpose of the
  /// dot's A.
  bool mnMajor = false;
  /// Where `regs` is in a tensor-core accumulator layout (mnAccumulatorA):
  /// its type, which says the slots' coordinates; null for the blocked
  /// layout.
  RankedTensorType regsLayout = {};
  /// Where `smem` is set: the layout it holds the tile in
  /// (stagedOperandLayout); null for the dot lowering's own.
  const OperandSmemLayout *smemLayout = nullptr;
};

/// The value in a tensor-core layout a dot's A is cast from, when the dot
/// can take A from registers as it is (bf16/f16 in the dot's own layout:
/// wgmma's accumulator layout of m64nK is the A fragment layout of m64k16
/// steps; with whole rows per warp, mma.sync's accumulators of two m16n8
/// tiles side by side are the A fragment of one m16k16 step; f8 on wgmma,
/// its fragments gathered across each quad, or already in fragment order:
/// #pallas_gpu.wgmma_f8_a); null otherwise.
Value registerA(tt::DotOp dot);

/// wgmma's f8 A fragments (four 32-bit registers) for k step `ks` of the
/// m64 block whose slots start at `first`, from f8 `regs` held in the
/// wgmma accumulator layout: each thread's column pairs gathered across its
/// quad (two shuffles per 16 columns).
SmallVector<Value> f8AFragment(OpBuilder &b, Location loc, Value regs, int64_t ks,
                               int64_t first, Value tid);

/// The same where the columns are keys loaded permuted within each 16
/// (pallas-fragment-order-keys): the thread's own two pairs of each 16
/// columns are its four keys, each register two f8 pairs as rounded.
SmallVector<Value> f8AFragmentOfPermutedKeys(OpBuilder &b, Location loc, Value regs, int64_t ks,
                                             int64_t first);

/// The value in a tensor-core accumulator layout that a wgmma dot's
/// MN-major A (mnMajorA) is cast from, 16-bit: attention backward's P^T
/// and dS^T, the transposes of [q, k] results of earlier dots. The dot's
/// A buffer is written from those registers directly, a pair of adjacent
/// columns per store (placeDotOperands), instead of the tile first
/// crossing shared memory into the blocked layout. Null otherwise.
Value mnAccumulatorA(tt::DotOp dot);

/// The staged operand `v` of a dot (a pallas_gpu.ring_read result): where
/// its buffer is; null when `v` is not staged.
Value stagedOperandAddress(ConversionPatternRewriter &rw, Location loc, Value v,
                           const SimtState &state);
/// The layout of the staged operand `v`'s buffer (its ring's); null when
/// `v` is not staged.
const OperandSmemLayout *stagedOperandLayout(Value v, const SimtState &state);

/// Writes a tensor held in tensor-core accumulator layout `accumulator`
/// into shared memory at `base` in `layout`, one store per pair of
/// adjacent columns (slots 2k and 2k + 1). The caller places barriers.
void writeAccumulatorPairs(OpBuilder &b, Location loc, SimtState &s, Value base,
                           Value perThread, RankedTensorType accumulator,
                           const OperandSmemLayout &layout);

/// Writes a tensor held in the blocked layout (or, with `regsLayout`, in
/// that tensor-core accumulator layout) into shared memory at `base`
/// (!llvm.ptr<3>) in `layout`, a vector store per chunk (per pair of
/// adjacent columns). The caller places barriers.
void writeOperand(OpBuilder &b, Location loc, SimtState &s, Value base, Value perThread,
                  RankedTensorType type, const OperandSmemLayout &layout,
                  RankedTensorType regsLayout = {});

/// Where a dot's operands are in shared memory: staged ones where they
/// are, the others written to the scratch area (A, then B) in their layouts
/// between two barriers (readers of the previous contents are done; every
/// element is written). `asyncProxy` (wgmma): B starts on 1024 bytes and a
/// proxy fence orders the writes before reads through the async proxy.
std::pair<Value, Value> placeDotOperands(OpBuilder &b, Location loc, SimtState &s,
                                         DotOperand a, DotOperand bOperand,
                                         const OperandSmemLayout &aLayout,
                                         const OperandSmemLayout &bLayout, bool asyncProxy);

/// The dot on tensor cores (mma.sync) for a result in the mma layout.
FailureOr<Value> lowerDotToMma(OpBuilder &b, tt::DotOp op, DotOperand a, DotOperand bOperand,
                               Value c, SimtState &state);
/// The dot on Hopper's warpgroup MMA (wgmma) for a result in the wgmma
/// layout.
FailureOr<Value> lowerDotToWgmma(OpBuilder &b, tt::DotOp op, DotOperand a, DotOperand bOperand,
                                 Value c, SimtState &state);

} // namespace mlir::pallas::cuda

#endif
