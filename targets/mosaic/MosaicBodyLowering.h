//===- MosaicBodyLowering.h - kernel bodies as Mosaic ops -------*- C++ -*-===//
//
// The op-by-op half of convert-pallas-to-mosaic: tensors become vectors,
// ref accesses vector.load / tpu.vector_store, and the rest the vector, tpu
// and upstream ops JAX emits for the same primitives. It lowers kernel
// bodies and index functions (into the transform functions).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_MOSAIC_MOSAICBODYLOWERING_H
#define PALLAS_TARGETS_MOSAIC_MOSAICBODYLOWERING_H

#include "pallas/Dialect/Pallas.h"
#include "pallas/Mosaic/MosaicPasses.h"
#include "pallas/Passes/KernelWalker.h"

namespace mlir::pallas::mosaic {

/// What a pallas ref is on the Mosaic side: a memref whose dims are the
/// ref's dims plus hidden size-1 dims (squeezed block dims, dims a
/// ref_slice indexed with a scalar). JAX keeps those in the memref too.
struct RefView {
  Value memref;
  SmallVector<bool> hidden; ///< per memref dim
};

/// Start and size of one memref dim of an access.
struct DimAccess {
  Value start;      ///< the indexer's integer value, or null for a constant
  int64_t constant; ///< the start when `start` is null
  int64_t size;
  bool dropped; ///< not a dim of the accessed value
};

/// The Mosaic memory space of a ref's.
tpu::MemorySpace tpuSpace(MemorySpace space);
MemRefType memrefOf(ArrayRef<int64_t> shape, Type element, tpu::MemorySpace space);
/// The memref a scratch semaphore becomes (semaphore memory).
MemRefType semaphoreMemref(Type pallasSemaphore);

/// Lowers the ops of a kernel (or of an index function) into a Mosaic
/// function under construction.
class BodyLowering : public KernelWalker {
public:
  BodyLowering(OpBuilder &b, ArrayRef<Value> gridArgs, int64_t batchAxes,
               ArrayRef<int64_t> grid)
      : KernelWalker(b, b.getUnknownLoc()), gridArgs(gridArgs), batchAxes(batchAxes),
        grid(grid) {}

  DenseMap<Value, RefView> refs;

private:
  using KernelWalker::lower;
  /// `<what> not supported by the mosaic target`, at `op`.
  LogicalResult unsupported(Operation *op, StringRef what);
  LogicalResult notSupported(Operation *op) override { return unsupported(op, "is"); }
  LogicalResult lowerOtherOp(Operation *op) override;
  LogicalResult lowerConstant(arith::ConstantOp op);
  LogicalResult lowerSlice(tensor::ExtractSliceOp op);

  LogicalResult lower(ProgramIdOp op) override;
  LogicalResult lower(NumProgramsOp op) override;
  LogicalResult lower(LoadOp op) override;
  LogicalResult lower(StoreOp op) override;
  LogicalResult lower(SwapOp op) override;
  LogicalResult lower(RefSliceOp op) override;
  LogicalResult lower(AsyncCopyOp op) override;
  LogicalResult lower(DMAWaitOp op) override;
  /// The source and destination windows of a DMA (start or wait).
  template <typename DMAOp>
  FailureOr<std::pair<Value, Value>> dmaEnds(DMAOp op);
  LogicalResult lower(SemaphoreSignalOp op) override;
  LogicalResult lower(SemaphoreWaitOp op) override;
  LogicalResult lower(SemaphoreReadOp op) override;
  LogicalResult lower(IotaOp op) override;
  LogicalResult lower(BroadcastOp op) override;
  LogicalResult lower(ReshapeOp op) override;
  LogicalResult lower(TransposeOp op) override;
  LogicalResult lower(ReduceOp op) override;
  LogicalResult lower(DotOp op) override;
  LogicalResult lower(RunScopedOp op) override;
  LogicalResult lower(YieldOp op) override;
  LogicalResult lower(ReturnOp op) override;
  LogicalResult lower(AtomicRMWOp op) override { return unsupported(op, "atomics are"); }
  LogicalResult lower(AtomicCASOp op) override { return unsupported(op, "atomics are"); }
  LogicalResult lower(ConcatenateOp op) override { return unsupported(op, "concatenate is"); }
  LogicalResult lower(ArgMaxOp op) override { return unsupported(op, "argmax/argmin are"); }
  LogicalResult lower(ArgMinOp op) override { return unsupported(op, "argmax/argmin are"); }
  LogicalResult lower(CumsumOp op) override { return unsupported(op, "cumsum is"); }
  LogicalResult lower(BarrierOp op) override { return unsupported(op, "barriers are"); }
  LogicalResult lower(DebugPrintOp op) override { return unsupported(op, "debug_print is"); }
  LogicalResult lower(BlockOp op) override {
    return op.emitOpError("the mosaic target takes blocked kernels; do not "
                          "run pallas-expand-grid before it");
  }

  LogicalResult access(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                       ValueRange indices, SmallVectorImpl<DimAccess> &dims);
  /// The memref an access reads or writes and the window of it (start and
  /// size per memref dim); `scalars` when the memref holds scalars
  /// (memref.load/store: SMEM or rank 0) rather than vectors.
  struct Window {
    Value memref;
    SmallVector<Value> starts;
    SmallVector<int64_t> sizes;
    bool scalars = false;
    /// The window as a vector of `element`.
    VectorType vectorOf(Type element) const { return VectorType::get(sizes, element); }
  };
  FailureOr<Window> window(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                           ValueRange indices);
  FailureOr<Value> load(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                        ValueRange indices, Type resultType);
  LogicalResult store(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                      ValueRange indices, Value value);
  FailureOr<Value> view(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                        ValueRange indices, bool squeeze, RefView *out);

  Value indexConst(Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value toIndex(Location loc, Value v) {
    if (v.getType().isIndex())
      return v;
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  Value toI32(Location loc, Value v) {
    if (v.getType().isInteger(32))
      return v;
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    return v.getType().getIntOrFloatBitWidth() > 32
               ? (Value)arith::TruncIOp::create(b, loc, b.getI32Type(), v)
               : (Value)arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  }
  Value shapeCast(Location loc, Value v, ArrayRef<int64_t> shape) {
    auto type = cast<VectorType>(v.getType());
    if (type.getShape() == shape)
      return v;
    return vector::ShapeCastOp::create(
        b, loc, VectorType::get(shape, type.getElementType()), v);
  }

  SmallVector<Value> gridArgs;
  int64_t batchAxes;
  SmallVector<int64_t> grid;
};

} // namespace mlir::pallas::mosaic

#endif
