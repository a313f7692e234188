//===- MosaicBodyLowering.cpp - kernel bodies as Mosaic ops ---------------===//
#include "MosaicBodyLowering.h"

#include "pallas/Dialect/Reductions.h"
#include "pallas/Spec/IndexMapToArith.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::mosaic;

static Type convertType(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return VectorType::get(tensor.getShape(), tensor.getElementType());
  return t;
}

tpu::MemorySpace mosaic::tpuSpace(MemorySpace space) {
  switch (space) {
  case MemorySpace::any:
  case MemorySpace::gmem:
    return tpu::MemorySpace::any;
  case MemorySpace::smem:
    return tpu::MemorySpace::smem;
  default:
    return tpu::MemorySpace::vmem;
  }
}

MemRefType mosaic::memrefOf(ArrayRef<int64_t> shape, Type element, tpu::MemorySpace space) {
  MLIRContext *ctx = element.getContext();
  return MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                         tpu::MemorySpaceAttr::get(ctx, space));
}

MemRefType mosaic::semaphoreMemref(Type pallasSemaphore) {
  MLIRContext *ctx = pallasSemaphore.getContext();
  Type element = isa<DMASemaphoreType>(pallasSemaphore)
                     ? (Type)tpu::DMASemaphoreType::get(ctx)
                     : (Type)tpu::SemaphoreType::get(ctx);
  return memrefOf({}, element, tpu::MemorySpace::semaphore_mem);
}

static vector::CombiningKind combiningKind(ReductionKind kind, Type element) {
  bool isFloat = isa<FloatType>(element);
  bool isBool = element.isInteger(1);
  switch (kind) {
  case ReductionKind::sum:
    return vector::CombiningKind::ADD;
  case ReductionKind::prod:
    return vector::CombiningKind::MUL;
  case ReductionKind::max:
    return isFloat  ? vector::CombiningKind::MAXIMUMF
           : isBool ? vector::CombiningKind::OR
                    : vector::CombiningKind::MAXSI;
  case ReductionKind::min:
    return isFloat  ? vector::CombiningKind::MINIMUMF
           : isBool ? vector::CombiningKind::AND
                    : vector::CombiningKind::MINSI;
  case ReductionKind::and_:
    return vector::CombiningKind::AND;
  case ReductionKind::or_:
    return vector::CombiningKind::OR;
  case ReductionKind::xor_:
    return vector::CombiningKind::XOR;
  }
  llvm_unreachable("unknown reduction kind");
}

LogicalResult BodyLowering::unsupported(Operation *op, StringRef what) {
  return op->emitOpError() << what << " not supported by the mosaic target", failure();
}

LogicalResult BodyLowering::lower(ProgramIdOp op) {
  unsigned axis = op.getAxis() + batchAxes;
  if (axis >= gridArgs.size())
    return op.emitOpError("grid axis ") << op.getAxis() << " does not exist";
  values.map(op.getResult(), gridArgs[axis]);
  return success();
}

LogicalResult BodyLowering::lower(NumProgramsOp op) {
  unsigned axis = op.getAxis() + batchAxes;
  if (axis >= grid.size())
    return op.emitOpError("grid axis ") << op.getAxis() << " does not exist";
  values.map(op.getResult(),
             arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(grid[axis])));
  return success();
}

LogicalResult BodyLowering::lower(LoadOp op) {
  if (op.getMask())
    return unsupported(op, "masked loads are");
  FailureOr<Value> v = load(op, op.getRef(), op.getIndexers(), op.getIndices(), op.getType());
  if (failed(v))
    return failure();
  values.map(op.getResult(), *v);
  return success();
}

LogicalResult BodyLowering::lower(StoreOp op) {
  if (op.getMask())
    return unsupported(op, "masked stores are");
  // JAX stores through a swap: it reads the old block first. The read is
  // dead and Mosaic drops it, but it is part of the module JAX builds.
  if (failed(load(op, op.getRef(), op.getIndexers(), op.getIndices(),
                  op.getValue().getType())))
    return failure();
  return store(op, op.getRef(), op.getIndexers(), op.getIndices(),
               values.lookup(op.getValue()));
}

LogicalResult BodyLowering::lower(SwapOp op) {
  if (op.getMask())
    return unsupported(op, "masked swaps are");
  FailureOr<Value> old = load(op, op.getRef(), op.getIndexers(), op.getIndices(), op.getType());
  if (failed(old) || failed(store(op, op.getRef(), op.getIndexers(), op.getIndices(),
                                  values.lookup(op.getValue()))))
    return failure();
  values.map(op.getResult(), *old);
  return success();
}

LogicalResult BodyLowering::lower(RefSliceOp op) {
  RefView v;
  if (failed(view(op, op.getRef(), op.getIndexers(), op.getIndices(), /*squeeze=*/false, &v)))
    return failure();
  refs[op.getResult()] = v;
  return success();
}

template <typename DMAOp>
FailureOr<std::pair<Value, Value>> BodyLowering::dmaEnds(DMAOp op) {
  FailureOr<Value> src = view(op, op.getSrc(), op.getSrcIndexers(), op.getSrcIndices(),
                              /*squeeze=*/true, nullptr);
  FailureOr<Value> dst = view(op, op.getDst(), op.getDstIndexers(), op.getDstIndices(),
                              /*squeeze=*/true, nullptr);
  if (failed(src) || failed(dst))
    return failure();
  return std::make_pair(*src, *dst);
}

LogicalResult BodyLowering::lower(AsyncCopyOp op) {
  FailureOr<std::pair<Value, Value>> ends = dmaEnds(op);
  if (failed(ends))
    return failure();
  tpu::EnqueueDMAOp::create(b, loc, ends->first, Value(), ends->second,
                            values.lookup(op.getSem()), Value(), Value(),
                            b.getI32IntegerAttr(0), b.getBoolAttr(false));
  return success();
}

LogicalResult BodyLowering::lower(DMAWaitOp op) {
  FailureOr<std::pair<Value, Value>> ends = dmaEnds(op);
  if (failed(ends))
    return failure();
  tpu::WaitDMA2Op::create(b, loc, values.lookup(op.getSem()), ends->first, ends->second,
                          Value(), Value(), b.getBoolAttr(false));
  return success();
}

LogicalResult BodyLowering::lower(SemaphoreSignalOp op) {
  tpu::SemaphoreSignalOp::create(b, loc, values.lookup(op.getSem()),
                                 values.lookup(op.getValue()), Value(), Value());
  return success();
}

LogicalResult BodyLowering::lower(SemaphoreWaitOp op) {
  tpu::SemaphoreWaitOp::create(b, loc, values.lookup(op.getSem()),
                               values.lookup(op.getValue()));
  return success();
}

LogicalResult BodyLowering::lower(SemaphoreReadOp op) {
  values.map(op.getResult(),
             tpu::SemaphoreReadOp::create(b, loc, b.getI32Type(), values.lookup(op.getSem()))
                 .getResult());
  return success();
}

LogicalResult BodyLowering::lower(IotaOp op) {
  auto type = cast<VectorType>(convertType(op.getType()));
  if (!type.getElementType().isInteger(32))
    return unsupported(op, "iota of other than i32 is");
  values.map(op.getResult(),
             tpu::IotaOp::create(b, loc, type,
                                 b.getDenseI32ArrayAttr({static_cast<int32_t>(op.getDim())}))
                 .getResult());
  return success();
}

LogicalResult BodyLowering::lower(ReshapeOp op) {
  values.map(op.getResult(),
             shapeCast(loc, values.lookup(op.getInput()), op.getType().getShape()));
  return success();
}

LogicalResult BodyLowering::lower(TransposeOp op) {
  values.map(op.getResult(), vector::TransposeOp::create(b, loc, values.lookup(op.getInput()),
                                                         op.getPermutation())
                                 .getResult());
  return success();
}

// Terminators: built at their own location (`loc` does not move to them).

LogicalResult BodyLowering::lower(YieldOp op) {
  SmallVector<Value> results;
  for (Value v : op.getValues())
    results.push_back(values.lookup(v));
  tpu::YieldOp::create(b, op.getLoc(), results);
  return success();
}

LogicalResult BodyLowering::lower(ReturnOp op) {
  func::ReturnOp::create(b, op.getLoc());
  return success();
}

/// Ops of other dialects: constants (lowerConstant), the returns of index
/// functions (block indices, as i32), and arith, math and scf ops, cloned
/// with tensors turned into vectors.
LogicalResult BodyLowering::lowerOtherOp(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(c);
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    SmallVector<Value> results;
    for (Value v : ret.getOperands())
      results.push_back(toI32(ret.getLoc(), values.lookup(v)));
    func::ReturnOp::create(b, ret.getLoc(), results);
    return success();
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return lowerSlice(slice);
  if (!isa<arith::ArithDialect, math::MathDialect, scf::SCFDialect>(op->getDialect()))
    return unsupported(op, "is");
  for (Value v : op->getOperands())
    if (isa<RefType, SemaphoreType, DMASemaphoreType>(v.getType()))
      return op->emitOpError("passes a ref to an op the mosaic target cannot "
                             "lower");
  // (A run_scoped inside, a loop step's own buffers, lowers on its own.)
  WalkResult refsInside = op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (isa<RunScopedOp>(inner))
      return WalkResult::skip();
    for (Region &r : inner->getRegions())
      for (Block &blk : r)
        for (BlockArgument a : blk.getArguments())
          if (isa<RefType>(a.getType()))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (refsInside.wasInterrupted())
    return op->emitOpError("carries a ref through a region; the mosaic target "
                           "cannot lower that");
  return cloneWithLoweredRegions(op, convertType);
}

/// lax.slice (a static window of unit stride, the rank kept): a
/// vector.extract_strided_slice, as JAX lowers it for Mosaic.
LogicalResult BodyLowering::lowerSlice(tensor::ExtractSliceOp op) {
  if (!op.hasUnitStride() || op.getSourceType().getRank() != op.getType().getRank() ||
      !op.getType().hasStaticShape() ||
      llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic))
    return unsupported(op, "a slice other than a static window of unit stride is");
  SmallVector<int64_t> strides(op.getType().getRank(), 1);
  values.map(op.getResult(),
             vector::ExtractStridedSliceOp::create(b, loc, values.lookup(op.getSource()),
                                                   op.getStaticOffsets(),
                                                   op.getType().getShape(), strides)
                 .getResult());
  return success();
}

/// Splat tensor constants become a scalar constant and a vector.broadcast,
/// as JAX emits for `jnp.zeros`, `x * 2.0` and the like.
LogicalResult BodyLowering::lowerConstant(arith::ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !isa<RankedTensorType>(op.getType())) {
    values.map(op.getResult(), b.clone(*op)->getResult(0));
    return success();
  }
  auto type = cast<VectorType>(convertType(op.getType()));
  if (dense.isSplat()) {
    auto scalar = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    values.map(op.getResult(),
               vector::BroadcastOp::create(b, loc, type, scalar).getResult());
    return success();
  }
  values.map(op.getResult(),
             arith::ConstantOp::create(b, loc, dense.reshape(type)).getResult());
  return success();
}

/// Start and size per memref dim of an indexed access of `ref`.
LogicalResult BodyLowering::access(Operation *op, Value ref,
                                   ArrayRef<int64_t> encoded, ValueRange indices,
                                   SmallVectorImpl<DimAccess> &dims) {
  auto it = refs.find(ref);
  if (it == refs.end())
    return op->emitOpError("accesses a ref the mosaic target cannot trace to "
                           "a kernel argument");
  const RefView &v = it->second;
  auto refType = cast<RefType>(ref.getType());
  IndexerList list = IndexerList::decode(encoded).expandedFor(refType.getRank());
  ArrayRef<Indexer> items = list.get();
  unsigned operand = 0, item = 0;
  auto shape = cast<MemRefType>(v.memref.getType()).getShape();
  for (auto [d, hidden] : llvm::enumerate(v.hidden)) {
    if (hidden) {
      dims.push_back({Value(), 0, 1, true});
      continue;
    }
    const Indexer &ix = items[item++];
    switch (ix.kind) {
    case IndexerKind::Scalar:
      dims.push_back({values.lookup(indices[operand++]), 0, 1, true});
      break;
    case IndexerKind::ScalarConst:
      dims.push_back({Value(), ix.start, 1, true});
      break;
    case IndexerKind::Tensor:
      return op->emitOpError("gathers and scatters (tensor indexers) are not "
                             "supported by the mosaic target"),
             failure();
    case IndexerKind::Slice:
    case IndexerKind::SliceConst:
      if (ix.stride != 1)
        return op->emitOpError("strided slices are not supported by the "
                               "mosaic target"),
               failure();
      if (ix.kind == IndexerKind::Slice)
        dims.push_back({values.lookup(indices[operand++]), 0, ix.size, false});
      else
        dims.push_back({Value(), ix.start, ix.size, false});
      break;
    case IndexerKind::Full:
      dims.push_back({Value(), 0, shape[d], false});
      break;
    }
  }
  return success();
}

/// Rank-0 memrefs and SMEM hold scalars (memref.load/store), the rest
/// vectors.
static bool holdsScalars(MemRefType type) {
  return type.getRank() == 0 ||
         cast<tpu::MemorySpaceAttr>(type.getMemorySpace()).getValue() ==
             tpu::MemorySpace::smem;
}

FailureOr<BodyLowering::Window> BodyLowering::window(Operation *op, Value ref,
                                                     ArrayRef<int64_t> encoded,
                                                     ValueRange indices) {
  SmallVector<DimAccess> dims;
  if (failed(access(op, ref, encoded, indices, dims)))
    return failure();
  Window w;
  w.memref = refs[ref].memref;
  w.scalars = holdsScalars(cast<MemRefType>(w.memref.getType()));
  for (const DimAccess &d : dims) {
    w.starts.push_back(d.start ? toIndex(loc, d.start) : indexConst(loc, d.constant));
    w.sizes.push_back(d.size);
  }
  return w;
}

FailureOr<Value> BodyLowering::load(Operation *op, Value ref,
                                    ArrayRef<int64_t> encoded,
                                    ValueRange indices, Type resultType) {
  FailureOr<Window> w = window(op, ref, encoded, indices);
  if (failed(w))
    return failure();
  if (isa<SemaphoreType, DMASemaphoreType>(resultType))
    return view(op, ref, encoded, indices, /*squeeze=*/true, nullptr);
  VectorType window = w->vectorOf(cast<MemRefType>(w->memref.getType()).getElementType());
  if (!isa<RankedTensorType>(resultType)) {
    // A scalar: memref.load from SMEM, a one-element vector elsewhere.
    if (w->scalars)
      return memref::LoadOp::create(b, loc, w->memref, w->starts).getResult();
    Value one = vector::LoadOp::create(b, loc, window, w->memref, w->starts, BoolAttr(),
                                       IntegerAttr());
    return vector::ExtractOp::create(b, loc, one, SmallVector<int64_t>(w->sizes.size(), 0))
        .getResult();
  }
  Value v = vector::LoadOp::create(b, loc, window, w->memref, w->starts, BoolAttr(),
                                   IntegerAttr());
  return shapeCast(loc, v, cast<RankedTensorType>(resultType).getShape());
}

LogicalResult BodyLowering::store(Operation *op, Value ref,
                                  ArrayRef<int64_t> encoded, ValueRange indices,
                                  Value value) {
  FailureOr<Window> w = window(op, ref, encoded, indices);
  if (failed(w))
    return failure();
  if (!isa<VectorType>(value.getType())) {
    if (w->scalars) {
      memref::StoreOp::create(b, loc, value, w->memref, w->starts);
      return success();
    }
    value = vector::BroadcastOp::create(b, loc, w->vectorOf(value.getType()), value);
  }
  value = shapeCast(loc, value, w->sizes);
  tpu::VectorStoreOp::create(b, loc, value, w->memref, w->starts,
                             b.getDenseI32ArrayAttr({}), Value(),
                             b.getBoolAttr(false));
  return success();
}

/// A window of `ref` as a memref: tpu.memref_slice at the access's starts;
/// with `squeeze`, dropped dims are squeezed away (DMA operands), otherwise
/// they stay as hidden dims of the result view.
FailureOr<Value> BodyLowering::view(Operation *op, Value ref,
                                    ArrayRef<int64_t> encoded,
                                    ValueRange indices, bool squeeze,
                                    RefView *out) {
  SmallVector<DimAccess> dims;
  if (failed(access(op, ref, encoded, indices, dims)))
    return failure();
  Value memref = refs[ref].memref;
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> sizes;
  SmallVector<bool> hidden;
  bool whole = true;
  for (auto [d, a] : llvm::enumerate(dims)) {
    sizes.push_back(a.size);
    hidden.push_back(a.dropped);
    whole &= !a.start && a.constant == 0 && a.size == type.getShape()[d];
  }
  Value result = memref;
  if (!whole) {
    SmallVector<Value> base;
    for (const DimAccess &a : dims)
      base.push_back(a.start ? toI32(loc, a.start)
                             : (Value)arith::ConstantOp::create(
                                   b, loc, b.getI32IntegerAttr(a.constant)));
    auto sliced = MemRefType::get(sizes, type.getElementType(),
                                  MemRefLayoutAttrInterface(), type.getMemorySpace());
    result = tpu::MemRefSliceOp::create(b, loc, sliced, result, base, ValueRange())
                 .getResult();
  }
  if (squeeze && llvm::is_contained(hidden, true)) {
    SmallVector<int64_t> kept;
    for (auto [s, h] : llvm::zip(sizes, hidden))
      if (!h)
        kept.push_back(s);
    auto squeezed = MemRefType::get(kept, type.getElementType(),
                                    MemRefLayoutAttrInterface(), type.getMemorySpace());
    result = tpu::MemRefSqueezeOp::create(b, loc, squeezed, result).getResult();
    hidden.assign(kept.size(), false);
  }
  if (out)
    *out = {result, hidden};
  return result;
}

LogicalResult BodyLowering::lower(BroadcastOp op) {
  auto resultType = cast<VectorType>(convertType(op.getType()));
  Value input = values.lookup(op.getInput());
  auto inputType = dyn_cast<VectorType>(input.getType());
  if (!inputType) {
    values.map(op.getResult(),
               vector::BroadcastOp::create(b, loc, resultType, input).getResult());
    return success();
  }
  // The verifier keeps the dims in order: a shape cast places them.
  SmallVector<int64_t> dims = op.getInputToResultDims();
  SmallVector<int64_t> shape(resultType.getRank(), 1);
  for (auto [i, d] : llvm::enumerate(dims))
    shape[d] = inputType.getShape()[i];
  Value v = shapeCast(loc, input, shape);
  if (cast<VectorType>(v.getType()) != resultType)
    v = vector::BroadcastOp::create(b, loc, resultType, v);
  values.map(op.getResult(), v);
  return success();
}

/// vector.multi_reduction with a neutral accumulator; a reduction to a
/// scalar goes through a leading unit dim and vector.extract, as in JAX.
LogicalResult BodyLowering::lower(ReduceOp op) {
  Value input = values.lookup(op.getInput());
  auto inputType = cast<VectorType>(input.getType());
  Type element = inputType.getElementType();
  auto kind = vector::CombiningKindAttr::get(
      b.getContext(), combiningKind(op.getKind(), element));
  TypedAttr identity = reductionIdentity(op.getKind(), element);
  SmallVector<int64_t> axes(op.getAxes());
  llvm::sort(axes);
  if (auto resultTensor = dyn_cast<RankedTensorType>(op.getType())) {
    auto accType = VectorType::get(resultTensor.getShape(), element);
    Value acc = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType, identity));
    values.map(op.getResult(),
               vector::MultiDimReductionOp::create(b, loc, accType, kind, input,
                                                   acc, b.getDenseI64ArrayAttr(axes))
                   .getResult());
    return success();
  }
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, inputType.getShape());
  Value lifted = shapeCast(loc, input, shape);
  auto accType = VectorType::get({1}, element);
  Value acc = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(accType, identity));
  SmallVector<int64_t> dims;
  for (unsigned d = 1; d < shape.size(); ++d)
    dims.push_back(d);
  Value r = vector::MultiDimReductionOp::create(b, loc, accType, kind, lifted, acc,
                                                b.getDenseI64ArrayAttr(dims));
  SmallVector<int64_t> ones(shape.size(), 1);
  r = shapeCast(loc, r, ones);
  values.map(op.getResult(),
             vector::ExtractOp::create(b, loc, r, SmallVector<int64_t>(ones.size(), 0))
                 .getResult());
  return success();
}

/// tpu.matmul into a zero 32-bit accumulator, then `acc +` (JAX's form of
/// `acc + jnp.dot(...)`), then a cast to the result type if it differs.
LogicalResult BodyLowering::lower(DotOp op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  // A 3-D dot has one leading batch dim (the verifier checks it): dims are
  // offset by it, and the output lists it first, as JAX's dot_general
  // lowering writes it.
  int64_t batch = lhsType.getRank() - 2;
  auto resultType = cast<VectorType>(convertType(op.getType()));
  bool isFloat = isa<FloatType>(lhsType.getElementType());
  Type accElement = isFloat ? (Type)b.getF32Type() : (Type)b.getI32Type();
  auto accType = VectorType::get(resultType.getShape(), accElement);
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getZeroAttr(accElement)));
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  int64_t lhsC = batch + (tl ? 0 : 1), rhsC = batch + (tr ? 1 : 0);
  int64_t lhsN = batch + (tl ? 1 : 0), rhsN = batch + (tr ? 0 : 1);
  SmallVector<int64_t> order;
  SmallVector<int64_t> batchDims;
  if (batch) {
    order = {0, 0};
    batchDims = {0};
  }
  order.append({0, lhsN, 1, rhsN});
  auto dims = tpu::DotDimensionNumbersAttr::get(b.getContext(), {lhsC}, {rhsC}, {lhsN},
                                                {rhsN}, order, batchDims, batchDims);
  Value r = tpu::MatmulOp::create(b, loc, accType, values.lookup(op.getLhs()),
                                  values.lookup(op.getRhs()), zero,
                                  b.getBoolAttr(false), b.getBoolAttr(false), dims);
  if (Value acc = op.getAcc()) {
    Value a = values.lookup(acc);
    if (cast<VectorType>(a.getType()).getElementType() != accElement)
      return op.emitOpError("accumulators of other than ")
             << accElement << " are not supported by the mosaic target",
             failure();
    r = isFloat ? (Value)arith::AddFOp::create(b, loc, a, r)
                : (Value)arith::AddIOp::create(b, loc, a, r);
  }
  Type want = resultType.getElementType();
  if (want != accElement) {
    unsigned have = accElement.getIntOrFloatBitWidth();
    unsigned wantBits = want.getIntOrFloatBitWidth();
    if (isFloat)
      r = wantBits < have ? (Value)arith::TruncFOp::create(b, loc, resultType, r)
                          : (Value)arith::ExtFOp::create(b, loc, resultType, r);
    else
      r = wantBits < have ? (Value)arith::TruncIOp::create(b, loc, resultType, r)
                          : (Value)arith::ExtSIOp::create(b, loc, resultType, r);
  }
  values.map(op.getResult(), r);
  return success();
}

/// run_scoped: a tpu.region allocating each scoped ref (memref.alloca) and
/// semaphore (tpu.sem_alloc).
LogicalResult BodyLowering::lower(RunScopedOp op) {
  SmallVector<Type> types;
  for (Type t : op.getResultTypes())
    types.push_back(convertType(t));
  auto region = tpu::RegionOp::create(b, loc, types);
  Block *body = new Block();
  region.getRegion().push_back(body);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);
  for (BlockArgument a : op.getBody().getArguments()) {
    if (auto ref = dyn_cast<RefType>(a.getType())) {
      Type element = ref.getElementType();
      if (isa<SemaphoreType, DMASemaphoreType>(element)) {
        auto sems = memrefOf(
            ref.getShape(),
            cast<MemRefType>(semaphoreMemref(element)).getElementType(),
            tpu::MemorySpace::semaphore_mem);
        refs[a] = {tpu::AllocaSemaphoreOp::create(b, loc, sems).getResult(),
                   SmallVector<bool>(ref.getRank(), false)};
        continue;
      }
      tpu::MemorySpace space = ref.getMemorySpace() == MemorySpace::smem
                                   ? tpu::MemorySpace::smem
                                   : tpu::MemorySpace::vmem;
      Value m = memref::AllocaOp::create(
          b, loc, memrefOf(ref.getShape(), element, space));
      refs[a] = {m, SmallVector<bool>(ref.getRank(), false)};
      continue;
    }
    values.map(a, tpu::AllocaSemaphoreOp::create(b, loc, semaphoreMemref(a.getType()))
                      .getResult());
  }
  if (failed(lowerBlock(op.getBody().front())))
    return failure();
  for (auto [from, to] : llvm::zip(op.getResults(), region.getResults()))
    values.map(from, to);
  return success();
}
