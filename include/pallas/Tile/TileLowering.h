//===- TileLowering.h - a pallas kernel rebuilt as tile IR ------*- C++ -*-===//
//
// The walk convert-pallas-to-tile (tile/ConvertPallasToTile.cpp) makes over
// an expanded kernel: refs become a base pointer plus a compile-time View,
// accesses become tensors of pointers and masks, scratch and scoped buffers
// become register values carried through loops. Targets with memory the
// plain model lacks (the CUDA targets' shared memory and barriers for
// Pallas:MGPU kernels) derive from it and lower those ops themselves.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TILE_TILELOWERING_H
#define PALLAS_TILE_TILELOWERING_H

#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/BlockView.h"
#include "pallas/Passes/BlockViewOps.h"
#include "pallas/Passes/KernelWalker.h"
#include "pallas/Passes/RefAccess.h"
#include "pallas/Tile/Tile.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::pallas {

using View = BlockView;

class TileLowering : public KernelWalker {
public:
  TileLowering(KernelOp kernel, OpBuilder &b, bool tritonDotLimits, bool logicalProgramIds)
      : KernelWalker(b, kernel.getLoc()), kernel(kernel), tritonDotLimits(tritonDotLimits),
        logicalProgramIds(logicalProgramIds) {}
  virtual ~TileLowering() = default;
  LogicalResult run();

protected:
  using KernelWalker::lower;
  LogicalResult notSupported(Operation *op) override {
    return op->emitOpError("is not supported by ") << target() << " yet";
  }
  LogicalResult lowerOtherOp(Operation *op) override;

  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value splat(Value scalar, ArrayRef<int64_t> shape) {
    if (shape.empty())
      return scalar;
    return tt::SplatOp::create(b, loc, RankedTensorType::get(shape, scalar.getType()),
                               scalar);
  }
  Value expandTo(Value t, ArrayRef<int64_t> dimsOfT, ArrayRef<int64_t> shape);
  Value rangeAlong(unsigned d, ArrayRef<int64_t> shape);
  /// Where the position along dim `d` of a tensor of `shape` is `index`.
  Value atIndexAlong(unsigned d, ArrayRef<int64_t> shape, Value index) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rangeAlong(d, shape),
                                 splat(index, shape));
  }
  /// A tt.reduce over `axis` of `values` paired with i32 `tags` of the same
  /// shape; `combine(v1, t1, v2, t2)` gives the pair to keep. Results:
  /// the values' and the tags' reductions (scalars when no dims are left).
  tt::ReduceOp reducePairs(Value values, Value tags, int64_t axis,
                           function_ref<std::pair<Value, Value>(Value, Value, Value, Value)>
                               combine);
  Value toI32(Value v) {
    if (v.getType().isInteger(32))
      return v;
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    Type t = v.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      if (tensor.getElementType().isInteger(32))
        return v;
      Type to = RankedTensorType::get(tensor.getShape(), b.getI32Type());
      return tensor.getElementTypeBitWidth() > 32
                 ? (Value)arith::TruncIOp::create(b, loc, to, v)
                 : (Value)arith::ExtSIOp::create(b, loc, to, v);
    }
    return t.getIntOrFloatBitWidth() > 32
               ? (Value)arith::TruncIOp::create(b, loc, b.getI32Type(), v)
               : (Value)arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  }
  View wholeView(Value ptr, RefType type);
  /// The whole array of kernel argument `arg` at `ptr`, symbolic sizes
  /// included.
  View arrayView(Value ptr, BlockArgument arg);

  LogicalResult lowerIfWithScratch(scf::IfOp op, ArrayRef<Value> written);
  LogicalResult lowerForWithScratch(scf::ForOp op, ArrayRef<Value> written);
  /// The scratch refs (keys of `scratch`) `op` or an op inside it writes:
  /// a region writing them carries their values through.
  virtual SmallVector<Value> scratchWrittenIn(Operation *op);

  /// An indexed access: a tensor of pointers, the mask of those inside
  /// the array, the accessed shape and the element type.
  struct Access {
    Value ptrs, mask;
    SmallVector<int64_t> shape;
    Type elementType;
    /// Whether every array index is known to be at least 0 (the mask then
    /// only cuts the block at the array's far ends).
    bool nonNegative = false;
  };
  /// Where an access's elements land in a larger tensor: a copy into or
  /// out of part of a scoped buffer addresses the array over the buffer's
  /// whole shape, element p of the buffer at array window element
  /// p - offsets (outside the window the caller masks it off).
  struct Placement {
    SmallVector<int64_t> shape;
    SmallVector<Value> offsets; ///< i32 per dim; null for a whole dim (`:`)
    SmallVector<int64_t> windowDims; ///< the buffer dim of each window dim
    Value inWindow;                  ///< i1 tensor of `shape`
  };
  LogicalResult access(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                       ValueRange indices, Access &out, const Placement *into = nullptr);
  FailureOr<Placement> bufferWindow(Operation *op, Value buffer, ArrayRef<int64_t> encoded,
                                    ValueRange indices);
  LogicalResult lower(ProgramIdOp op) override {
    values.map(op.getResult(), pids[op.getAxis()]);
    return success();
  }
  LogicalResult lower(BlockOp op) override;
  LogicalResult lower(RefSliceOp op) override;
  LogicalResult lower(LoadOp op) override;
  LogicalResult lower(StoreOp op) override { return lowerWrite(RefWrite::of(op)); }
  LogicalResult lower(SwapOp op) override { return lowerWrite(RefWrite::of(op)); }
  LogicalResult lower(AtomicRMWOp op) override { return lowerWrite(RefWrite::of(op)); }
  LogicalResult lowerWrite(const RefWrite &write);
  LogicalResult lower(AtomicCASOp op) override;
  LogicalResult lower(RunScopedOp op) override;
  LogicalResult lower(AsyncCopyOp op) override;
  /// The copy was done when it started.
  LogicalResult lower(DMAWaitOp op) override { return success(); }
  LogicalResult lower(SemaphoreSignalOp op) override { return lowerSemaphoreOp(op); }
  LogicalResult lower(SemaphoreWaitOp op) override { return lowerSemaphoreOp(op); }
  LogicalResult lower(SemaphoreReadOp op) override { return lowerSemaphoreOp(op); }
  LogicalResult lowerSemaphoreOp(Operation *op);
  LogicalResult lower(IotaOp op) override;
  LogicalResult lower(BroadcastOp op) override;
  LogicalResult lower(ReshapeOp op) override;
  LogicalResult lower(TransposeOp op) override;
  LogicalResult lower(ReduceOp op) override;
  LogicalResult lower(CumsumOp op) override;
  LogicalResult lower(DotOp op) override;
  LogicalResult lower(ArgMaxOp op) override { return lowerArgReduce(op, /*isMax=*/true); }
  LogicalResult lower(ArgMinOp op) override { return lowerArgReduce(op, /*isMax=*/false); }
  template <typename ArgOp>
  LogicalResult lowerArgReduce(ArgOp op, bool isMax);
  LogicalResult lower(ConcatenateOp op) override;
  /// The kernel's end: run() returns from the function.
  LogicalResult lower(ReturnOp op) override { return success(); }
  LogicalResult lowerScratchAccess(Operation *op);
  /// The dims of a register-held scratch value an access picks by index
  /// (the rest whole), or failure for other indexers.
  FailureOr<SmallVector<std::pair<int64_t, Value>>> scratchPicks(Operation *op, Value ref,
                                                                  ArrayRef<int64_t> encoded,
                                                                  ValueRange indices);
  Value pickAlong(Value tensor, int64_t dim, Value index);

  KernelOp kernel;
  // Whether Triton compiles the result (its minimum dot size applies).
  bool tritonDotLimits;
  /// Who refuses what this lowering cannot express, in diagnostics: the
  /// triton target, or the CUDA targets, which lower through it.
  StringRef target() const { return tritonDotLimits ? "the triton target" : "the CUDA target"; }
  bool logicalProgramIds;
  RefViews views;
  /// Scratch refs live as values: the current contents of each.
  llvm::MapVector<Value, Value> scratch;
  /// The starting value of a scratch ref or scoped buffer: zeros of its
  /// shape (a scalar for a 0-d ref).
  /// Scratch and scoped buffers are register tensors: power-of-two sizes,
  /// as every tensor of this lowering (reads by index would otherwise let
  /// a non-power-of-two one through unnoticed).
  LogicalResult checkRegisterShape(Operation *op, RefType ref, StringRef what);
  Value zeroedScratch(RefType ref) {
    Type t = ref.getRank() ? (Type)RankedTensorType::get(ref.getShape(), ref.getElementType())
                           : ref.getElementType();
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(t)));
  }
  SmallVector<Value> pids;
  /// Symbolic sizes by name: i32 arguments of the function.
  llvm::StringMap<Value> sizes;
  /// Programs along grid axis `axis` (i32): a constant, or computed from
  /// the sizes.
  FailureOr<Value> gridExtent(unsigned axis);
};

} // namespace mlir::pallas

#endif
