//===- ConvertPallasToHost.cpp - expanded kernels to CPU loops ------------===//
//
// Walks an expanded kernel in program order and rebuilds it inside a
// `run_range` function: refs become memrefs plus a compile-time View (offset,
// stride and size per dimension), accesses become bounds-checked element
// loops, and tensor primitives become tensor/linalg ops that upstream
// bufferization and lowering take to LLVM.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Dialect/Reductions.h"
#include "pallas/Mgpu/Mgpu.h"
#include "pallas/Passes/BlockView.h"
#include "pallas/Passes/BlockViewOps.h"
#include "pallas/Passes/KernelWalker.h"
#include "pallas/Passes/RefAccess.h"
#include "pallas/Host/HostPasses.h"
#include "pallas/Spec/IndexMapToArith.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_CONVERTPALLASTOHOST
#include "pallas/Host/HostPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

using View = BlockView;

class KernelLowering : public KernelWalker {
public:
  KernelLowering(KernelOp kernel, OpBuilder &b)
      : KernelWalker(b, kernel.getLoc()), kernel(kernel) {}
  LogicalResult run(ModuleOp module);

private:
  using KernelWalker::lower;
  LogicalResult notSupported(Operation *op) override {
    return op->emitOpError("is not supported on the host target yet");
  }
  LogicalResult lowerOtherOp(Operation *op) override;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value toIndex(Value v) {
    if (v.getType().isIndex())
      return v;
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  View wholeView(Value memref);
  /// The array's extent along `dim` (index): a constant, or the symbolic
  /// size the memref was given.
  Value arrayDim(OpBuilder &ib, const View &view, unsigned dim) {
    if (!ShapedType::isDynamic(view.arrayShape[dim]))
      return arith::ConstantIndexOp::create(ib, loc, view.arrayShape[dim]);
    return memref::DimOp::create(ib, loc, view.base, dim);
  }
  /// A memref of the array behind size-dependent `ref` at `ptr` (a bare
  /// pointer, as memref<1xT>), with the sizes and row-major strides of
  /// this launch.
  Value symbolicArray(Value ptr, RefType ref, BlockSpecAttr spec);
  /// Programs along grid axis `axis` (index).
  FailureOr<Value> gridSize(unsigned axis);
  /// The base-array indices of the element at result coordinates `ivs` of an
  /// access, clamped into the array, and whether it lies inside the array.
  SmallVector<Value> elementIndices(OpBuilder &ib, const View &view,
                                    const IndexerList &list, ValueRange operands,
                                    ArrayRef<int64_t> advancedShape,
                                    ValueRange ivs, Value &inBounds);
  LogicalResult accessInfo(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                           ValueRange indices, View &view, IndexerList &list,
                           SmallVector<Value> &operands,
                           SmallVector<int64_t> &advancedShape,
                           SmallVector<int64_t> &shape);
  Value zeroOf(OpBuilder &ib, Type t) {
    return arith::ConstantOp::create(ib, loc, ib.getZeroAttr(t));
  }
  Value extractAt(OpBuilder &ib, Value tensorOrScalar, ValueRange ivs) {
    if (!isa<RankedTensorType>(tensorOrScalar.getType()))
      return tensorOrScalar;
    return tensor::ExtractOp::create(ib, loc, tensorOrScalar, ivs);
  }

  LogicalResult lower(ProgramIdOp op) override {
    values.map(op.getResult(), pids[op.getAxis()]);
    return success();
  }
  LogicalResult lower(NumProgramsOp op) override {
    return op.emitOpError("num_programs must be folded by pallas-expand-grid");
  }
  LogicalResult lower(BlockOp op) override;
  LogicalResult lower(RefSliceOp op) override;
  LogicalResult lower(LoadOp op) override;
  LogicalResult lower(StoreOp op) override { return lowerWrite(RefWrite::of(op)); }
  LogicalResult lower(SwapOp op) override { return lowerWrite(RefWrite::of(op)); }
  LogicalResult lower(AtomicRMWOp op) override { return lowerWrite(RefWrite::of(op)); }
  LogicalResult lowerWrite(const RefWrite &write);
  LogicalResult lower(IotaOp op) override;
  LogicalResult lower(BroadcastOp op) override;
  LogicalResult lower(ReshapeOp op) override;
  LogicalResult lower(TransposeOp op) override;
  LogicalResult lower(ConcatenateOp op) override;
  LogicalResult lower(ReduceOp op) override;
  LogicalResult lower(ArgMaxOp op) override { return lowerArgReduce(op, /*isMax=*/true); }
  LogicalResult lower(ArgMinOp op) override { return lowerArgReduce(op, /*isMax=*/false); }
  template <typename ArgOp>
  LogicalResult lowerArgReduce(ArgOp op, bool isMax);
  LogicalResult lower(CumsumOp op) override;
  LogicalResult lower(DotOp op) override;
  /// One thread runs a whole program on the host.
  LogicalResult lower(BarrierOp op) override { return success(); }
  LogicalResult lower(RunScopedOp op) override;
  LogicalResult lower(AsyncCopyOp op) override;
  /// The copy was done when it started.
  LogicalResult lower(DMAWaitOp op) override { return success(); }
  LogicalResult lower(SemaphoreSignalOp op) override { return lowerSemaphoreOp(op); }
  LogicalResult lower(SemaphoreWaitOp op) override { return lowerSemaphoreOp(op); }
  LogicalResult lower(SemaphoreReadOp op) override { return lowerSemaphoreOp(op); }
  LogicalResult lowerSemaphoreOp(Operation *op);
  LogicalResult lower(DebugPrintOp op) override;
  /// The kernel's end: run() returns from the function.
  LogicalResult lower(ReturnOp op) override { return success(); }

  KernelOp kernel;
  RefViews views;
  SmallVector<Value> pids;
  SmallVector<Value> scopedAllocs;
  /// Scoped semaphores (pl.semaphore in run_scoped): one i32 cell each.
  DenseMap<Value, Value> semaphores;
  /// Symbolic sizes by name: i64 arguments of run_range.
  llvm::StringMap<Value> sizes;

  // Pallas:MGPU kernels of several threads (warpgroups): each runs on a
  // thread of its own (the work items are blocks x threads); what they
  // share (SMEM scratch and barriers scoped over the thread axis) lies in
  // an arena the launch allocates per block, zeroed.
  LogicalResult planArena();
  bool sharedByThreads(RunScopedOp op) const;
  LogicalResult lowerBarrierOp(Operation *op);
  /// Per barrier array: its [N x 2] i32 state (arrivals this phase,
  /// phases completed), and this thread's count of completed waits.
  struct BarrierState {
    Value state, waits;
    int64_t arrivals;
  };
  Value zeroed(MemRefType type);
  int64_t numThreads = 1;
  StringRef threadName;
  Value threadIndex, arena;
  int64_t arenaBytes = 0;
  DenseMap<Value, int64_t> arenaOffsets;
  DenseMap<Value, BarrierState> barriers;
};

View KernelLowering::wholeView(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return BlockView::whole(memref, type.getShape(), type.getElementType(), idx(0));
}

static MemRefType memrefFor(RefType ref) {
  return MemRefType::get(ref.getShape(), ref.getElementType());
}

/// Symbolic arrays pass as bare pointers (what the calling convention
/// allows for static shapes only) and get their shape inside.
static MemRefType parameterFor(RefType ref) {
  if (ref.hasStaticShape())
    return memrefFor(ref);
  return MemRefType::get({1}, ref.getElementType());
}

Value KernelLowering::symbolicArray(Value ptr, RefType ref, BlockSpecAttr spec) {
  ArrayRef<int64_t> shape = ref.getShape();
  SmallVector<OpFoldResult> dims(shape.size()), strides(shape.size());
  for (unsigned d = 0; d < shape.size(); ++d)
    dims[d] = ShapedType::isDynamic(shape[d])
                  ? OpFoldResult(toIndex(sizes.lookup(spec.getSizeNames()[d].getValue())))
                  : OpFoldResult(b.getIndexAttr(shape[d]));
  OpFoldResult stride = b.getIndexAttr(1);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride = OpFoldResult(arith::MulIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
        getValueOrCreateConstantIndexOp(b, loc, dims[d])));
  }
  auto type = MemRefType::get(
      shape, ref.getElementType(),
      StridedLayoutAttr::get(b.getContext(), 0,
                             SmallVector<int64_t>(shape.size(), ShapedType::kDynamic)));
  return memref::ReinterpretCastOp::create(b, loc, type, ptr, b.getIndexAttr(0), dims,
                                           strides);
}

FailureOr<Value> KernelLowering::gridSize(unsigned axis) {
  LaunchAttr launch = getLaunch(kernel);
  int64_t n = launch.getGrid()[axis];
  if (!ShapedType::isDynamic(n))
    return idx(n);
  FailureOr<Value> v =
      emitSizeExpr(b, loc, launch.getGridSizes()[axis].getValue(),
                   [&](StringRef name) { return sizes.lookup(name); });
  if (failed(v))
    return failure();
  return toIndex(*v);
}

/// How many of the leading parallel axes (the first `numOuter`) the host
/// spreads over threads: up to the first that some output the programs
/// take as a block (not a whole array in ANY or GMEM they index
/// themselves) does not follow, its index map ignoring the axis. Pallas
/// gives each program such a block as its own (interpret mode runs them in
/// turn, a TPU core holds it in its VMEM): splash attention keeps its
/// running statistics in outputs of one block for every head. Those axes
/// run in order here, as the axes after a sequential one do.
static unsigned threadedAxes(KernelOp kernel, unsigned numOuter) {
  Block &entry = kernel.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
    if (!spec || spec.getRole() != ArgRole::output || !spec.getIndexMap())
      continue;
    bool blocked = llvm::any_of(arg.getUsers(), [](Operation *user) {
      auto block = dyn_cast<BlockOp>(user);
      if (!block)
        return false;
      MemorySpace space = cast<RefType>(block.getType()).getMemorySpace();
      return space != MemorySpace::any && space != MemorySpace::gmem;
    });
    if (!blocked)
      continue;
    AffineMap map = spec.getIndexMap();
    for (unsigned a = 0; a < numOuter; ++a)
      if (a < map.getNumDims() && !map.isFunctionOfDim(a)) {
        numOuter = a;
        break;
      }
  }
  return numOuter;
}

LogicalResult KernelLowering::run(ModuleOp module) {
  LaunchAttr launch = getLaunch(kernel);
  std::string name = launch.getSymbol().str();
  ArrayRef<int64_t> grid = launch.getGrid();
  // Axes up to the first sequential one are spread over threads; the rest
  // run in order inside each work item.
  unsigned numOuter = launch.numLeadingParallelAxes();
  plgpu::MeshAttr mesh = plgpu::getMesh(kernel);
  if (!mesh) {
    numOuter = threadedAxes(kernel, numOuter);
    module->setAttr(kHostWorkAxesAttrName, b.getI64IntegerAttr(numOuter));
  }
  if (mesh && mesh.getNumThreads() > 1) {
    numThreads = mesh.getNumThreads();
    threadName = mesh.getThreadName().getValue();
    if (numOuter != grid.size() || !launch.getGridSizes().empty())
      return kernel.emitOpError("runs several threads per block on the host only over a "
                                "static grid of parallel axes");
    if (failed(planArena()))
      return failure();
  }

  Block &entry = kernel.getBody().front();
  SmallVector<Type> argTypes{b.getI64Type(), b.getI64Type()};
  SmallVector<unsigned> arrayArgs, scratchArgs, sizeArgs;
  for (BlockArgument arg : entry.getArguments()) {
    if (isa<IntegerType>(arg.getType())) {
      sizeArgs.push_back(arg.getArgNumber());
      continue;
    }
    auto ref = dyn_cast<RefType>(arg.getType());
    if (!ref)
      return kernel.emitOpError("the host target does not support semaphore "
                                "arguments yet");
    if (isScratchArg(kernel, arg.getArgNumber())) {
      scratchArgs.push_back(arg.getArgNumber());
      continue;
    }
    arrayArgs.push_back(arg.getArgNumber());
    argTypes.push_back(parameterFor(ref));
  }
  // Sizes after the arrays, in the launch's order.
  for (unsigned argNo : sizeArgs)
    argTypes.push_back(entry.getArgument(argNo).getType());
  if (numThreads > 1 && !sizeArgs.empty())
    return kernel.emitOpError("runs several threads per block on the host only with "
                              "static shapes");
  if (numThreads > 1) {
    // The block's arena last; the host backend's `run_range` starts the
    // threads, each running this function for its work item.
    argTypes.push_back(MemRefType::get({std::max<int64_t>(arenaBytes, 1)}, b.getI8Type()));
    module->setAttr(kHostThreadsAttrName, b.getDenseI64ArrayAttr({numThreads, arenaBytes}));
  }

  b.setInsertionPoint(kernel);
  auto fn = func::FuncOp::create(b, loc, name + (numThreads > 1 ? "_run_thread" : "_run_range"),
                                 b.getFunctionType(argTypes, {}));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  for (auto [i, argNo] : llvm::enumerate(sizeArgs)) {
    Value size = body->getArgument(2 + arrayArgs.size() + i);
    values.map(entry.getArgument(argNo), size);
    sizes[getBlockSpec(kernel, argNo).getName()] = size;
  }
  for (auto [i, argNo] : llvm::enumerate(arrayArgs)) {
    Value array = body->getArgument(2 + i);
    auto ref = cast<RefType>(entry.getArgument(argNo).getType());
    if (!ref.hasStaticShape())
      array = symbolicArray(array, ref, getBlockSpec(kernel, argNo));
    views[entry.getArgument(argNo)] = wholeView(array);
  }
  SmallVector<Value> scratch;
  for (unsigned argNo : scratchArgs) {
    Value m = memref::AllocOp::create(
        b, loc, memrefFor(cast<RefType>(entry.getArgument(argNo).getType())));
    scratch.push_back(m);
    views[entry.getArgument(argNo)] = wholeView(m);
  }

  // for item in [begin, end): decompose into the outer axes' program ids.
  Value begin = arith::IndexCastOp::create(b, loc, b.getIndexType(), body->getArgument(0));
  Value end = arith::IndexCastOp::create(b, loc, b.getIndexType(), body->getArgument(1));
  auto items = scf::ForOp::create(b, loc, begin, end, idx(1));
  b.setInsertionPointToStart(items.getBody());
  pids.assign(grid.size(), Value());
  Value rest = items.getInductionVar();
  if (numThreads > 1) {
    arena = body->getArguments().back();
    Value t = idx(numThreads);
    threadIndex = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                             arith::RemUIOp::create(b, loc, rest, t));
    rest = arith::DivUIOp::create(b, loc, rest, t);
  }
  SmallVector<Value> extents;
  {
    // Grid extents before the loops (those of symbolic axes are computed).
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(items);
    for (unsigned a = 0; a < grid.size(); ++a) {
      FailureOr<Value> n = gridSize(a);
      if (failed(n))
        return failure();
      extents.push_back(*n);
    }
  }
  for (int a = numOuter - 1; a >= 0; --a) {
    Value size = extents[a];
    Value p = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
    pids[a] = arith::IndexCastOp::create(b, loc, b.getI32Type(), p);
  }
  for (unsigned a = numOuter; a < grid.size(); ++a) {
    auto loop = scf::ForOp::create(b, loc, idx(0), extents[a], idx(1));
    b.setInsertionPointToStart(loop.getBody());
    pids[a] = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         loop.getInductionVar());
  }
  if (failed(lowerBlock(entry)))
    return failure();

  // Buffer deallocation (upstream, after bufferization) frees the scratch.
  b.setInsertionPoint(body, body->end());
  func::ReturnOp::create(b, loc);
  (void)module;
  return success();
}

LogicalResult KernelLowering::lowerOtherOp(Operation *op) {
  if (auto axis = dyn_cast<plgpu::AxisIndexOp>(op)) {
    if (!threadIndex || axis.getAxis() != threadName)
      return op->emitOpError("is not supported on the host target");
    values.map(axis.getResult(), threadIndex);
    return success();
  }
  if (isa<plgpu::BarrierArriveOp, plgpu::BarrierWaitOp, plgpu::BarrierTestOp>(op))
    return lowerBarrierOp(op);
  for (Value v : op->getOperands())
    if (isa<RefType>(v.getType()))
      return op->emitOpError("passes a ref to an op the host target cannot "
                             "lower; refs may only be indexed by pallas ops");
  return KernelWalker::lowerOtherOp(op);
}

//===----------------------------------------------------------------------===//
// Refs and accesses
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lower(BlockOp op) {
  return addBlockView(b, loc, views, op,
                      [&](Value i) { return toIndex(values.lookupOrDefault(i)); });
}

LogicalResult KernelLowering::lower(RefSliceOp op) {
  return addSliceView(b, loc, views, op,
                      [&](Value i) { return toIndex(values.lookupOrDefault(i)); });
}

LogicalResult KernelLowering::accessInfo(Operation *op, Value ref,
                                         ArrayRef<int64_t> encoded,
                                         ValueRange indices, View &view,
                                         IndexerList &list,
                                         SmallVector<Value> &operands,
                                         SmallVector<int64_t> &advancedShape,
                                         SmallVector<int64_t> &shape) {
  auto it = views.find(ref);
  if (it == views.end())
    return op->emitOpError("accesses a ref the host target cannot trace to "
                           "an array");
  view = it->second;
  FailureOr<AccessShape> access = AccessShape::of(op, ref, encoded, indices);
  if (failed(access))
    return failure();
  list = access->list;
  advancedShape = access->advanced;
  shape = access->result;
  for (Value v : indices)
    operands.push_back(values.lookupOrDefault(v));
  return success();
}

SmallVector<Value> KernelLowering::elementIndices(
    OpBuilder &ib, const View &view, const IndexerList &list,
    ValueRange operands, ArrayRef<int64_t> advancedShape, ValueRange ivs,
    Value &inBounds) {
  // Where the broadcast (advanced) coordinates sit among the result dims.
  unsigned advRank = advancedShape.size();
  IndexerList::ResultLayout layout = list.resultLayout(advRank);
  SmallVector<Value> adv;
  if (layout.advancedStart >= 0)
    adv.assign(ivs.begin() + layout.advancedStart,
               ivs.begin() + layout.advancedStart + advRank);
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, loc, v); };
  auto toIdx = [&](Value v) -> Value {
    if (v.getType().isIndex())
      return v;
    return arith::IndexCastOp::create(ib, loc, ib.getIndexType(), v);
  };
  SmallVector<Value> coords; // per view dim
  unsigned next = 0;
  for (auto [d, i] : llvm::enumerate(list.get())) {
    Value operand = i.takesOperand() ? operands[next++] : Value();
    switch (i.kind) {
    case IndexerKind::Full:
      coords.push_back(ivs[layout.sliceDim[d]]);
      break;
    case IndexerKind::Slice:
    case IndexerKind::SliceConst: {
      Value start = i.kind == IndexerKind::Slice ? toIdx(operand) : cst(i.start);
      Value step = arith::MulIOp::create(ib, loc, ivs[layout.sliceDim[d]], cst(i.stride));
      coords.push_back(arith::AddIOp::create(ib, loc, start, step));
      break;
    }
    case IndexerKind::Scalar:
      coords.push_back(toIdx(operand));
      break;
    case IndexerKind::ScalarConst:
      coords.push_back(cst(i.start));
      break;
    case IndexerKind::Tensor: {
      auto t = cast<RankedTensorType>(operand.getType());
      SmallVector<Value> at;
      for (int64_t j = 0; j < t.getRank(); ++j) {
        unsigned a = advRank - t.getRank() + j;
        at.push_back(t.getShape()[j] == 1 && advancedShape[a] != 1 ? cst(0)
                                                                    : adv[a]);
      }
      Value e = tensor::ExtractOp::create(ib, loc, operand, at);
      // Index tensors may be narrower or wider than index; sign-extend.
      coords.push_back(arith::IndexCastOp::create(ib, loc, ib.getIndexType(), e));
      break;
    }
    }
  }
  SmallVector<Value> base(view.fixed.begin(), view.fixed.end());
  for (auto [d, vd] : llvm::enumerate(view.dims))
    base[vd.arrayDim] = arith::AddIOp::create(
        ib, loc, vd.offset, arith::MulIOp::create(ib, loc, coords[d], cst(vd.stride)));
  inBounds = arith::ConstantIntOp::create(ib, loc, 1, 1);
  SmallVector<Value> clamped;
  for (auto [k, i] : llvm::enumerate(base)) {
    Value size = arrayDim(ib, view, k);
    // Unsigned compare: negative indices are huge and fail too.
    Value ok = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult, i, size);
    inBounds = arith::AndIOp::create(ib, loc, inBounds, ok);
    clamped.push_back(arith::MinUIOp::create(
        ib, loc, i, arith::SubIOp::create(ib, loc, size, cst(1))));
  }
  return clamped;
}

LogicalResult KernelLowering::lower(LoadOp op) {
  View view;
  IndexerList list;
  SmallVector<Value> operands;
  SmallVector<int64_t> adv, shape;
  if (failed(accessInfo(op, op.getRef(), op.getIndexers(), op.getIndices(),
                        view, list, operands, adv, shape)))
    return failure();
  Value mask = op.getMask() ? values.lookup(op.getMask()) : Value();
  Value other = op.getOther() ? values.lookup(op.getOther()) : Value();
  auto element = [&](OpBuilder &ib, ValueRange ivs) -> Value {
    Value ok;
    SmallVector<Value> at =
        elementIndices(ib, view, list, operands, adv, ivs, ok);
    if (mask)
      ok = arith::AndIOp::create(ib, loc, ok, extractAt(ib, mask, ivs));
    Value v = memref::LoadOp::create(ib, loc, view.base, at);
    Value fallback = other ? extractAt(ib, other, ivs) : zeroOf(ib, view.elementType);
    return arith::SelectOp::create(ib, loc, ok, v, fallback);
  };
  Value result;
  if (shape.empty()) {
    result = element(b, {});
  } else {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    result = tensor::GenerateOp::create(
        b, loc, type, ValueRange{},
        [&](OpBuilder &ib, Location, ValueRange ivs) {
          tensor::YieldOp::create(ib, loc, element(ib, ivs));
        });
  }
  values.map(op.getResult(), result);
  return success();
}

static FailureOr<arith::AtomicRMWKind> atomicKindFor(AtomicKind kind, Type elt) {
  bool isFloat = isa<FloatType>(elt);
  switch (kind) {
  case AtomicKind::add:
    return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  case AtomicKind::max:
    return isFloat ? arith::AtomicRMWKind::maximumf : arith::AtomicRMWKind::maxs;
  case AtomicKind::min:
    return isFloat ? arith::AtomicRMWKind::minimumf : arith::AtomicRMWKind::mins;
  case AtomicKind::and_:
    return arith::AtomicRMWKind::andi;
  case AtomicKind::or_:
    return arith::AtomicRMWKind::ori;
  case AtomicKind::xchg:
    return arith::AtomicRMWKind::assign;
  case AtomicKind::xor_:
    return failure();
  }
  return failure();
}

/// Stores (plain, swap or atomic): a loop over the value's elements, each
/// written only when inside the array (and the mask). Swap and atomics
/// collect the old values into a tensor carried through the loops.
LogicalResult KernelLowering::lowerWrite(const RefWrite &write) {
  Operation *op = write.op;
  std::optional<AtomicKind> atomic = write.atomic;
  bool returnsOld = write.returnsOld;
  View view;
  IndexerList list;
  SmallVector<Value> operands;
  SmallVector<int64_t> adv, shape;
  if (failed(accessInfo(op, write.ref, write.indexers, write.indices, view, list, operands,
                        adv, shape)))
    return failure();
  Value v = values.lookup(write.value);
  Value mask = write.mask ? values.lookup(write.mask) : Value();
  std::optional<arith::AtomicRMWKind> rmw;
  if (atomic) {
    FailureOr<arith::AtomicRMWKind> k = atomicKindFor(*atomic, view.elementType);
    if (failed(k))
      return op->emitOpError("atomic ")
             << stringifyAtomicKind(*atomic) << " is not supported on the host target yet";
    rmw = *k;
  }
  // One element: returns the old value (or zero) when asked.
  auto element = [&](OpBuilder &ib, ValueRange ivs) -> Value {
    Value ok;
    SmallVector<Value> at = elementIndices(ib, view, list, operands, adv, ivs, ok);
    if (mask)
      ok = arith::AndIOp::create(ib, loc, ok, extractAt(ib, mask, ivs));
    Value x = extractAt(ib, v, ivs);
    Type elt = view.elementType;
    auto ifOp = scf::IfOp::create(ib, loc, returnsOld ? TypeRange{elt} : TypeRange{},
                                  ok, /*withElseRegion=*/returnsOld);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value old;
      if (rmw) {
        old = memref::AtomicRMWOp::create(tb, loc, *rmw, x, view.base, at);
      } else {
        if (returnsOld)
          old = memref::LoadOp::create(tb, loc, view.base, at);
        memref::StoreOp::create(tb, loc, x, view.base, at);
      }
      if (returnsOld)
        scf::YieldOp::create(tb, loc, old);
    }
    if (returnsOld) {
      OpBuilder eb = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, zeroOf(eb, elt));
      return ifOp.getResult(0);
    }
    return Value();
  };
  if (shape.empty()) {
    Value old = element(b, {});
    if (returnsOld)
      values.map(op->getResult(0), old);
    return success();
  }
  SmallVector<Value> lbs(shape.size(), idx(0)), steps(shape.size(), idx(1)), ubs;
  for (int64_t s : shape)
    ubs.push_back(idx(s));
  SmallVector<Value> init;
  if (returnsOld)
    init.push_back(tensor::EmptyOp::create(b, loc, shape, view.elementType));
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, init,
      [&](OpBuilder &ib, Location, ValueRange ivs, ValueRange iter) {
        Value old = element(ib, ivs);
        if (!returnsOld)
          return scf::ValueVector{};
        return scf::ValueVector{
            tensor::InsertOp::create(ib, loc, old, iter[0], ivs).getResult()};
      });
  if (returnsOld)
    values.map(op->getResult(0), nest.results[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor primitives
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lower(BroadcastOp op) {
  Value in = values.lookup(op.getInput());
  auto type = op.getResult().getType();
  auto inType = dyn_cast<RankedTensorType>(in.getType());
  if (!inType) {
    values.map(op.getResult(), tensor::SplatOp::create(b, loc, type, in));
    return success();
  }
  SmallVector<int64_t> dims = op.getInputToResultDims();
  Value r = tensor::GenerateOp::create(
      b, loc, type, ValueRange{}, [&](OpBuilder &ib, Location, ValueRange ivs) {
        SmallVector<Value> at;
        for (auto [i, d] : llvm::enumerate(dims))
          at.push_back(inType.getShape()[i] == 1
                           ? arith::ConstantIndexOp::create(ib, loc, 0).getResult()
                           : ivs[d]);
        tensor::YieldOp::create(ib, loc, tensor::ExtractOp::create(ib, loc, in, at));
      });
  values.map(op.getResult(), r);
  return success();
}

LogicalResult KernelLowering::lower(ReshapeOp op) {
  Value in = values.lookup(op.getInput());
  auto inType = op.getInput().getType();
  auto outType = op.getResult().getType();
  Value flat = in;
  if (inType.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < inType.getRank(); ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({inType.getNumElements()}, inType.getElementType()),
        in, ArrayRef<ReassociationIndices>{all});
  }
  Value out = flat;
  if (outType.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < outType.getRank(); ++i)
      all.push_back(i);
    out = tensor::ExpandShapeOp::create(b, loc, outType, flat,
                                        ArrayRef<ReassociationIndices>{all});
  }
  values.map(op.getResult(), out);
  return success();
}

LogicalResult KernelLowering::lower(IotaOp op) {
  auto type = op.getResult().getType();
  int64_t dim = op.getDim();
  Value r = tensor::GenerateOp::create(
      b, loc, type, ValueRange{}, [&](OpBuilder &ib, Location, ValueRange ivs) {
        Value v = ivs[dim];
        if (!type.getElementType().isIndex())
          v = arith::IndexCastOp::create(ib, loc, type.getElementType(), v);
        tensor::YieldOp::create(ib, loc, v);
      });
  values.map(op.getResult(), r);
  return success();
}

LogicalResult KernelLowering::lower(TransposeOp op) {
  auto type = op.getResult().getType();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  auto tr = linalg::TransposeOp::create(b, loc, values.lookup(op.getInput()), init,
                                        op.getPermutation());
  values.map(op.getResult(), tr.getResult()[0]);
  return success();
}

LogicalResult KernelLowering::lower(ConcatenateOp op) {
  auto type = op.getResult().getType();
  Value acc = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  int64_t offset = 0, dim = op.getDim();
  for (Value in : op.getInputs()) {
    auto inType = cast<RankedTensorType>(in.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes,
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t s : inType.getShape())
      sizes.push_back(b.getIndexAttr(s));
    offsets[dim] = b.getIndexAttr(offset);
    offset += inType.getShape()[dim];
    acc = tensor::InsertSliceOp::create(b, loc, values.lookup(in), acc, offsets, sizes,
                                        strides);
  }
  values.map(op.getResult(), acc);
  return success();
}

LogicalResult KernelLowering::lower(ReduceOp op) {
  Value in = values.lookup(op.getInput());
  auto inType = op.getInput().getType();
  Type elt = inType.getElementType();
  SmallVector<int64_t> axes(op.getAxes());
  llvm::sort(axes);
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < inType.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      kept.push_back(inType.getShape()[d]);
  Value init = tensor::EmptyOp::create(b, loc, kept, elt);
  init = linalg::FillOp::create(b, loc, buildReductionIdentity(b, loc, op.getKind(), elt),
                                init)
             .getResult(0);
  ReductionKind kind = op.getKind();
  auto reduce = linalg::ReduceOp::create(
      b, loc, ValueRange{in}, ValueRange{init}, axes,
      [&](OpBuilder &ib, Location, ValueRange args) {
        linalg::YieldOp::create(ib, loc, buildReductionCombiner(ib, loc, kind, args[0], args[1]));
      });
  Value r = reduce.getResult(0);
  if (kept.empty())
    r = tensor::ExtractOp::create(b, loc, r, ValueRange{});
  values.map(op.getResult(), r);
  return success();
}

template <typename ArgOp>
LogicalResult KernelLowering::lowerArgReduce(ArgOp op, bool isMax) {
  Value in = values.lookup(op.getInput());
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  int64_t axis = op.getAxis();
  Type elt = inType.getElementType();
  auto element = [&](OpBuilder &ib, ValueRange outIvs) -> Value {
    auto at = [&](Value k) {
      SmallVector<Value> ivs(outIvs.begin(), outIvs.end());
      ivs.insert(ivs.begin() + axis, k);
      return ivs;
    };
    Value c0 = arith::ConstantIndexOp::create(ib, loc, 0);
    Value first = tensor::ExtractOp::create(ib, loc, in, at(c0));
    auto loop = scf::ForOp::create(
        ib, loc, arith::ConstantIndexOp::create(ib, loc, 1),
        arith::ConstantIndexOp::create(ib, loc, inType.getShape()[axis]),
        arith::ConstantIndexOp::create(ib, loc, 1), ValueRange{first, c0},
        [&](OpBuilder &lb, Location, Value k, ValueRange iter) {
          Value x = tensor::ExtractOp::create(lb, loc, in, at(k));
          Value better;
          if (isa<FloatType>(elt))
            better = arith::CmpFOp::create(lb, loc,
                                           isMax ? arith::CmpFPredicate::OGT
                                                 : arith::CmpFPredicate::OLT,
                                           x, iter[0]);
          else
            better = arith::CmpIOp::create(lb, loc,
                                           isMax ? arith::CmpIPredicate::sgt
                                                 : arith::CmpIPredicate::slt,
                                           x, iter[0]);
          scf::YieldOp::create(
              lb, loc,
              ValueRange{arith::SelectOp::create(lb, loc, better, x, iter[0]),
                         arith::SelectOp::create(lb, loc, better, k, iter[1])});
        });
    return arith::IndexCastOp::create(ib, loc, ib.getI32Type(), loop.getResult(1));
  };
  Value r;
  if (auto type = dyn_cast<RankedTensorType>(op.getResult().getType()))
    r = tensor::GenerateOp::create(b, loc, type, ValueRange{},
                                   [&](OpBuilder &ib, Location, ValueRange ivs) {
                                     tensor::YieldOp::create(ib, loc, element(ib, ivs));
                                   });
  else
    r = element(b, {});
  values.map(op.getResult(), r);
  return success();
}

LogicalResult KernelLowering::lower(CumsumOp op) {
  Value in = values.lookup(op.getInput());
  auto type = op.getInput().getType();
  int64_t axis = op.getAxis(), n = type.getShape()[axis];
  bool reverse = op.getReverse();
  Type elt = type.getElementType();
  Value r = tensor::GenerateOp::create(
      b, loc, type, ValueRange{}, [&](OpBuilder &ib, Location, ValueRange ivs) {
        Value i = ivs[axis];
        Value one = arith::ConstantIndexOp::create(ib, loc, 1);
        Value lo = reverse ? i : arith::ConstantIndexOp::create(ib, loc, 0).getResult();
        Value hi = reverse ? arith::ConstantIndexOp::create(ib, loc, n).getResult()
                           : arith::AddIOp::create(ib, loc, i, one).getResult();
        auto loop = scf::ForOp::create(
            ib, loc, lo, hi, one, ValueRange{zeroOf(ib, elt)},
            [&](OpBuilder &lb, Location, Value k, ValueRange iter) {
              SmallVector<Value> at(ivs.begin(), ivs.end());
              at[axis] = k;
              Value x = tensor::ExtractOp::create(lb, loc, in, at);
              scf::YieldOp::create(lb, loc,
                                   buildReductionCombiner(lb, loc, ReductionKind::sum, x, iter[0]));
            });
        tensor::YieldOp::create(ib, loc, loop.getResult(0));
      });
  values.map(op.getResult(), r);
  return success();
}

/// Casts a scalar of the operand type to the accumulation type.
static Value toAccumulator(OpBuilder &b, Location loc, Value x, Type acc) {
  if (x.getType() == acc)
    return x;
  if (isa<FloatType>(acc))
    return arith::ExtFOp::create(b, loc, acc, x);
  return arith::ExtSIOp::create(b, loc, acc, x);
}

LogicalResult KernelLowering::lower(DotOp op) {
  Value lhs = values.lookup(op.getLhs()), rhs = values.lookup(op.getRhs());
  auto resultType = op.getResult().getType();
  Type acc = resultType.getElementType();
  Value init;
  if (op.getAcc()) {
    init = values.lookup(op.getAcc());
  } else {
    init = tensor::EmptyOp::create(b, loc, resultType.getShape(), acc);
    init = linalg::FillOp::create(b, loc, zeroOf(b, acc), init).getResult(0);
  }
  // Iteration order (batch, m, k, n): the innermost loop walks rows of the
  // rhs and the output contiguously, which vectorises.
  bool batched = resultType.getRank() == 3;
  MLIRContext *ctx = b.getContext();
  unsigned nd = batched ? 4 : 3, o = batched ? 1 : 0;
  AffineExpr m = getAffineDimExpr(o, ctx), k = getAffineDimExpr(o + 1, ctx),
             n = getAffineDimExpr(o + 2, ctx);
  SmallVector<AffineExpr> a = op.getTransposeLhs() ? SmallVector<AffineExpr>{k, m}
                                                   : SmallVector<AffineExpr>{m, k};
  SmallVector<AffineExpr> bm = op.getTransposeRhs() ? SmallVector<AffineExpr>{n, k}
                                                    : SmallVector<AffineExpr>{k, n};
  SmallVector<AffineExpr> c{m, n};
  SmallVector<utils::IteratorType> iters{utils::IteratorType::parallel,
                                         utils::IteratorType::reduction,
                                         utils::IteratorType::parallel};
  if (batched) {
    AffineExpr bd = getAffineDimExpr(0, ctx);
    a.insert(a.begin(), bd);
    bm.insert(bm.begin(), bd);
    c.insert(c.begin(), bd);
    iters.insert(iters.begin(), utils::IteratorType::parallel);
  }
  SmallVector<AffineMap> maps{AffineMap::get(nd, 0, a, ctx),
                              AffineMap::get(nd, 0, bm, ctx),
                              AffineMap::get(nd, 0, c, ctx)};
  bool isFloat = isa<FloatType>(acc);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{init}, maps,
      iters, [&](OpBuilder &ib, Location, ValueRange args) {
        Value x = toAccumulator(ib, loc, args[0], acc);
        Value y = toAccumulator(ib, loc, args[1], acc);
        Value r = isFloat ? (Value)arith::AddFOp::create(
                                ib, loc, args[2], arith::MulFOp::create(ib, loc, x, y))
                          : (Value)arith::AddIOp::create(
                                ib, loc, args[2], arith::MulIOp::create(ib, loc, x, y));
        linalg::YieldOp::create(ib, loc, r);
      });
  values.map(op.getResult(), generic.getResult(0));
  return success();
}

LogicalResult KernelLowering::lower(RunScopedOp op) {
  Block &body = op.getBody().front();
  SmallVector<Value> allocs;
  bool shared = sharedByThreads(op);
  for (BlockArgument a : body.getArguments()) {
    if (auto barrier = dyn_cast<plgpu::BarrierType>(a.getType())) {
      int64_t n = barrier.getNumBarriers();
      auto stateType = MemRefType::get({n, 2}, b.getI32Type());
      Value state = shared ? (Value)memref::ViewOp::create(b, loc, stateType, arena,
                                                           idx(arenaOffsets.lookup(a)), ValueRange{})
                           : zeroed(stateType);
      barriers[a] = {state, zeroed(MemRefType::get({n}, b.getI32Type())),
                     barrier.getNumArrivals()};
      continue;
    }
    auto ref = dyn_cast<RefType>(a.getType());
    if (shared && ref && arenaOffsets.count(a)) {
      Value m = memref::ViewOp::create(b, loc, memrefFor(ref), arena, idx(arenaOffsets.lookup(a)),
                                       ValueRange{});
      views[a] = wholeView(m);
      continue;
    }
    if (!ref) {
      // A semaphore: a counter starting at 0 (copies leave a DMA
      // semaphore's alone: each is done when it starts, lower(AsyncCopyOp)).
      Value cell = memref::AllocaOp::create(b, loc, MemRefType::get({}, b.getI32Type()));
      memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 0, 32), cell);
      semaphores[a] = cell;
      continue;
    }
    Value m = memref::AllocOp::create(b, loc, memrefFor(ref));
    allocs.push_back(m);
    views[a] = wholeView(m);
  }
  // Freed by the upstream buffer deallocation pipeline.
  return lowerRunScopedInPlace(op);
}

/// One program runs on one thread from start to end, so an asynchronous
/// copy is done at once (as in Pallas's interpret mode): each element of
/// the source window that lies inside both arrays is copied to the same
/// position of the destination window; dma_wait then has nothing to wait
/// for.
LogicalResult KernelLowering::lower(AsyncCopyOp op) {
  View srcView, dstView;
  IndexerList srcList, dstList;
  SmallVector<Value> srcOperands, dstOperands;
  SmallVector<int64_t> srcAdv, dstAdv, srcShape, dstShape;
  if (failed(accessInfo(op, op.getSrc(), op.getSrcIndexers(), op.getSrcIndices(), srcView,
                        srcList, srcOperands, srcAdv, srcShape)) ||
      failed(accessInfo(op, op.getDst(), op.getDstIndexers(), op.getDstIndices(), dstView,
                        dstList, dstOperands, dstAdv, dstShape)))
    return failure();
  if (srcShape != dstShape || srcView.elementType != dstView.elementType)
    return op.emitOpError("copies a window of ")
           << srcShape.size() << " dims into one of another shape or element type";
  auto element = [&](OpBuilder &ib, ValueRange ivs) {
    Value inSrc, inDst;
    SmallVector<Value> from =
        elementIndices(ib, srcView, srcList, srcOperands, srcAdv, ivs, inSrc);
    SmallVector<Value> to = elementIndices(ib, dstView, dstList, dstOperands, dstAdv, ivs, inDst);
    Value ok = arith::AndIOp::create(ib, loc, inSrc, inDst);
    auto ifOp = scf::IfOp::create(ib, loc, TypeRange{}, ok, /*withElseRegion=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value v = memref::LoadOp::create(tb, loc, srcView.base, from);
    memref::StoreOp::create(tb, loc, v, dstView.base, to);
  };
  if (srcShape.empty()) {
    element(b, {});
    return success();
  }
  SmallVector<Value> lbs(srcShape.size(), idx(0)), steps(srcShape.size(), idx(1)), ubs;
  for (int64_t s : srcShape)
    ubs.push_back(idx(s));
  scf::buildLoopNest(b, loc, lbs, ubs, steps,
                     [&](OpBuilder &ib, Location, ValueRange ivs) { element(ib, ivs); });
  return success();
}

//===----------------------------------------------------------------------===//
// Pallas:MGPU threads and barriers
//===----------------------------------------------------------------------===//

/// Scratch scoped over the thread axis is shared by the block's threads.
bool KernelLowering::sharedByThreads(RunScopedOp op) const {
  if (numThreads <= 1)
    return false;
  auto axes = op->getAttrOfType<ArrayAttr>(plgpu::PlgpuDialect::kCollectiveAxesAttrName);
  return axes && llvm::any_of(axes, [&](Attribute a) {
           return cast<StringAttr>(a).getValue() == threadName;
         });
}

/// Offsets in the block's arena of the SMEM refs and barriers of every
/// run_scoped shared by the threads (the accumulators, registers, stay
/// each thread's own).
LogicalResult KernelLowering::planArena() {
  WalkResult r = kernel.walk([&](RunScopedOp op) {
    if (!sharedByThreads(op))
      return WalkResult::advance();
    for (BlockArgument a : op.getBody().getArguments()) {
      int64_t bytes = 0;
      if (auto barrier = dyn_cast<plgpu::BarrierType>(a.getType())) {
        bytes = barrier.getNumBarriers() * 8;
      } else if (auto ref = dyn_cast<RefType>(a.getType())) {
        if (ref.getMemorySpace() == MemorySpace::regs)
          continue;
        unsigned bits = ref.getElementType().getIntOrFloatBitWidth();
        if (bits % 8) {
          op.emitOpError("shares a ref of ") << ref.getElementType()
                                             << " between threads, which the host target "
                                                "does not support";
          return WalkResult::interrupt();
        }
        bytes = ref.getNumElements() * bits / 8;
      } else {
        continue;
      }
      arenaBytes = llvm::alignTo(arenaBytes, 128);
      arenaOffsets[a] = arenaBytes;
      arenaBytes += bytes;
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

Value KernelLowering::zeroed(MemRefType type) {
  Value m = memref::AllocOp::create(b, loc, type);
  linalg::FillOp::create(b, loc, ValueRange{zeroOf(b, type.getElementType())}, ValueRange{m});
  return m;
}

/// mbarriers between threads: an arrival adds one to the phase's count;
/// the one that makes it `arrivals` takes them back and completes the
/// phase. A thread waits (yielding the CPU) until more phases have
/// completed than it has waited for, then counts the wait; a test asks
/// the same without waiting. The atomics order the data the threads hand
/// each other through the barrier.
LogicalResult KernelLowering::lowerBarrierOp(Operation *op) {
  Value barrier = op->getOperand(0);
  auto it = barriers.find(barrier);
  if (it == barriers.end())
    return op->emitOpError("uses a barrier the host target cannot trace to its scope");
  BarrierState st = it->second;
  Value index = op->getNumOperands() > 1 ? toIndex(values.lookupOrDefault(op->getOperand(1)))
                                         : idx(0);
  Value count = idx(0), phase = idx(1);
  auto rmw = [&](OpBuilder &ib, Value delta, Value which) {
    return memref::AtomicRMWOp::create(ib, loc, arith::AtomicRMWKind::addi, delta, st.state,
                                       ValueRange{index, which})
        .getResult();
  };
  auto i32 = [&](OpBuilder &ib, int64_t v) { return arith::ConstantIntOp::create(ib, loc, v, 32); };
  if (isa<plgpu::BarrierArriveOp>(op)) {
    Value before = rmw(b, i32(b, 1), count);
    Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, before,
                                       i32(b, st.arrivals - 1));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, last, /*withElseRegion=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    rmw(tb, i32(tb, -st.arrivals), count);
    rmw(tb, i32(tb, 1), phase);
    return success();
  }
  Value waited = memref::LoadOp::create(b, loc, st.waits, ValueRange{index});
  if (auto test = dyn_cast<plgpu::BarrierTestOp>(op)) {
    Value done = rmw(b, i32(b, 0), phase);
    values.map(test.getResult(),
               arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, done, waited));
    return success();
  }
  auto module = kernel->getParentOfType<ModuleOp>();
  if (!module.lookupSymbol("sched_yield")) {
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto yieldFn = func::FuncOp::create(mb, loc, "sched_yield",
                                        mb.getFunctionType({}, {mb.getI32Type()}));
    yieldFn.setPrivate();
  }
  auto spin = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  {
    OpBuilder cb = OpBuilder::atBlockBegin(&spin.getBefore().emplaceBlock());
    Value done = rmw(cb, i32(cb, 0), phase);
    Value pending = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::sle, done, waited);
    scf::ConditionOp::create(cb, loc, pending, ValueRange{});
    OpBuilder db = OpBuilder::atBlockBegin(&spin.getAfter().emplaceBlock());
    func::CallOp::create(db, loc, "sched_yield", TypeRange{db.getI32Type()}, ValueRange{});
    scf::YieldOp::create(db, loc);
  }
  memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, waited, i32(b, 1)), st.waits,
                          ValueRange{index});
  return success();
}

/// Scoped semaphores on one thread: signal adds, read reads, wait
/// subtracts (a wait for more than was signalled would never return on a
/// chip; here the count goes below zero and the program goes on).
LogicalResult KernelLowering::lowerSemaphoreOp(Operation *op) {
  Value cell = semaphores.lookup(op->getOperand(0));
  if (!cell)
    return op->emitOpError("takes a semaphore argument of the kernel, which the host target "
                           "does not support yet (scoped semaphores of pallas.run_scoped it "
                           "does)");
  Value now = memref::LoadOp::create(b, loc, cell);
  if (auto read = dyn_cast<SemaphoreReadOp>(op)) {
    values.map(read.getResult(), now);
    return success();
  }
  Value amount = values.lookupOrDefault(op->getOperand(1));
  Value next = isa<SemaphoreSignalOp>(op) ? (Value)arith::AddIOp::create(b, loc, now, amount)
                                          : (Value)arith::SubIOp::create(b, loc, now, amount);
  memref::StoreOp::create(b, loc, next, cell);
  return success();
}

/// printf with the format's `{}` placeholders (or, without any, the
/// values after it) as conversions: floats as %g of a double, integers as
/// %lld of an int64 (i1 as 0 or 1). Programs run on several threads, so
/// lines from different programs may interleave, as on a GPU.
LogicalResult KernelLowering::lower(DebugPrintOp op) {
  SmallVector<Value> args;
  SmallVector<std::string> conversions;
  for (Value arg : op.getArgs()) {
    Type t = arg.getType();
    Value v = values.lookupOrDefault(arg);
    if (isa<FloatType>(t) && t.getIntOrFloatBitWidth() <= 64 && t.getIntOrFloatBitWidth() >= 16) {
      if (!t.isF64())
        v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
      conversions.push_back("%g");
    } else if (t.isIndex() || (isa<IntegerType>(t) && t.getIntOrFloatBitWidth() <= 64)) {
      if (t.isIndex())
        v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
      else if (t.isInteger(1))
        v = arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
      else if (!t.isInteger(64))
        v = arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
      conversions.push_back("%lld");
    } else {
      return op.emitOpError("prints scalars of integer and float types on the host target; "
                            "got ")
             << t;
    }
    args.push_back(v);
  }
  // The format, '%' escaped, placeholders replaced.
  StringRef format = op.getFormat();
  std::string text;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format.substr(i).starts_with("{}") && next < conversions.size()) {
      text += conversions[next++];
      ++i;
    } else {
      text += format[i] == '%' ? "%%" : std::string(1, format[i]);
    }
  }
  for (; next < conversions.size(); ++next)
    text += " " + conversions[next];
  text += '\n';
  text.push_back('\0');

  auto module = op->getParentOfType<ModuleOp>();
  OpBuilder top(module.getBodyRegion());
  auto i8 = b.getI8Type();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto printf = module.lookupSymbol<LLVM::LLVMFuncOp>("printf");
  if (!printf)
    printf = LLVM::LLVMFuncOp::create(
        top, loc, "printf", LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr}, /*isVarArg=*/true));
  std::string name;
  for (int n = 0; name.empty() || module.lookupSymbol(name); ++n)
    name = "__pallas_debug_print_" + std::to_string(n);
  auto global = LLVM::GlobalOp::create(top, loc, LLVM::LLVMArrayType::get(i8, text.size()),
                                       /*isConstant=*/true, LLVM::Linkage::Internal, name,
                                       b.getStringAttr(text));
  Value address = LLVM::AddressOfOp::create(b, loc, global);
  args.insert(args.begin(), address);
  LLVM::CallOp::create(b, loc, printf, args);
  return success();
}

struct ConvertPallasToHostPass
    : public pallas::impl::ConvertPallasToHostBase<ConvertPallasToHostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // LLVM has no 8-bit float types: f8 arithmetic runs in f32
    // (arith-emulate-unsupported-floats) and the conversions around it as
    // integer arithmetic (pallas-expand-f8-conversions), as ml_dtypes
    // computes it.
    if (failed(lowerExpandedKernels(module, "the host", [&](KernelOp kernel) {
          OpBuilder b(kernel);
          return KernelLowering(kernel, b).run(module);
        })))
      return signalPassFailure();
  }
};
} // namespace
