//===- BlockDims.cpp - which block dims travel together -------------------===//
#include "pallas/Passes/BlockDims.h"

#include "pallas/Dialect/Indexers.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::pallas;

ArrayRef<int64_t> mlir::pallas::shapeOf(Type t) {
  if (auto r = dyn_cast<RefType>(t))
    return r.getShape();
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getShape();
  return {};
}

void DimClasses::add(Value v) {
  for (unsigned d = 0; d < shapeOf(v.getType()).size(); ++d)
    classes.insert(slot(v, d));
}

void DimClasses::join(Value a, unsigned da, Value b, unsigned db) {
  add(a);
  add(b);
  classes.unionSets(slot(a, da), slot(b, db));
}

void DimClasses::joinAll(Value a, Value b) {
  if (shapeOf(a.getType()) != shapeOf(b.getType())) {
    block(a);
    block(b);
    return;
  }
  for (unsigned d = 0; d < shapeOf(a.getType()).size(); ++d)
    join(a, d, b, d);
}

void DimClasses::block(Value v, int dim) {
  add(v);
  for (unsigned d = 0; d < shapeOf(v.getType()).size(); ++d)
    if (dim < 0 || static_cast<int>(d) == dim)
      blocked.push_back(classes.getLeaderValue(slot(v, d)));
}

bool DimClasses::isBatch(Slot leaderSlot) {
  for (Slot b : batch)
    if (classes.getLeaderValue(b) == leaderSlot)
      return true;
  return false;
}

bool DimClasses::isBlocked(Slot leaderSlot) {
  for (Slot b : blocked)
    if (classes.getLeaderValue(b) == leaderSlot)
      return true;
  return false;
}

/// A load or store that slices ref `ref` (no tensor indexers): its whole
/// dims (`:`) tie to `value`'s, sliced ones are blocked. False where it
/// does not take this form.
static bool joinPartialAccess(DimClasses &dims, Value ref, Value value,
                              ArrayRef<int64_t> encoded) {
  auto type = cast<RefType>(ref.getType());
  IndexerList list = IndexerList::decode(encoded).expandedFor(type.getRank());
  if (list.hasTensorIndexer())
    return false;
  dims.add(ref);
  dims.add(value);
  unsigned out = 0;
  for (auto [d, i] : llvm::enumerate(list.get())) {
    if (!i.isSlice()) {
      dims.block(ref, d);
      continue;
    }
    if (i.kind == IndexerKind::Full)
      dims.join(ref, d, value, out);
    else {
      dims.block(ref, d);
      dims.block(value, out);
    }
    ++out;
  }
  return true;
}

bool mlir::pallas::analyseBlockDims(KernelOp kernel, DimClasses &dims, bool partialAccesses) {
  bool ok = true;
  Block &entry = kernel.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    dims.add(arg);
    BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
    if (!spec || spec.getRole() == ArgRole::prefetch ||
        (spec.getRole() != ArgRole::scratch && !spec.getIndexMap()))
      dims.block(arg);
  }
  kernel.walk([&](Operation *op) {
    if (isa<AtomicRMWOp, AtomicCASOp, DebugPrintOp, AsyncCopyOp, DMAWaitOp,
            SemaphoreSignalOp, SemaphoreWaitOp, RunScopedOp>(op)) {
      ok = false;
      return;
    }
    auto isArg = [&](Value ref) {
      auto a = dyn_cast<BlockArgument>(ref);
      return a && a.getOwner() == &entry;
    };
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (load.getIndexers().empty() && isArg(load.getRef())) {
        dims.joinAll(load.getRef(), load.getResult());
        if (load.getMask())
          dims.joinAll(load.getResult(), load.getMask());
        if (load.getOther())
          dims.joinAll(load.getResult(), load.getOther());
        return;
      }
      if (partialAccesses && isArg(load.getRef()) && !load.getMask() && !load.getOther() &&
          joinPartialAccess(dims, load.getRef(), load.getResult(), load.getIndexers()))
        return;
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (store.getIndexers().empty() && isArg(store.getRef())) {
        dims.joinAll(store.getRef(), store.getValue());
        if (store.getMask())
          dims.joinAll(store.getValue(), store.getMask());
        return;
      }
      if (partialAccesses && isArg(store.getRef()) && !store.getMask() &&
          joinPartialAccess(dims, store.getRef(), store.getValue(), store.getIndexers()))
        return;
    } else if (auto dot = dyn_cast<DotOp>(op)) {
      int64_t rank = dot.getResult().getType().getRank();
      if (rank == 2 || rank == 3) {
        // [M, K] x [K, N], or [B, M, K] x [B, K, N]: the batch dim of all
        // three, then M and N (K is the other dim of each operand).
        unsigned batch = rank - 2;
        unsigned m = batch + (dot.getTransposeLhs() ? 1 : 0);
        unsigned n = batch + (dot.getTransposeRhs() ? 0 : 1);
        if (batch) {
          dims.join(dot.getResult(), 0, dot.getLhs(), 0);
          dims.join(dot.getResult(), 0, dot.getRhs(), 0);
          dims.markBatch(dot.getResult(), 0);
        }
        dims.join(dot.getResult(), batch, dot.getLhs(), m);
        dims.join(dot.getResult(), batch + 1, dot.getRhs(), n);
        dims.block(dot.getLhs(), 2 * batch + 1 - m);
        dims.block(dot.getRhs(), 2 * batch + 1 - n);
        if (dot.getAcc())
          dims.joinAll(dot.getResult(), dot.getAcc());
        return;
      }
    } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
      dims.add(reduce.getInput());
      unsigned out = 0;
      for (unsigned d = 0; d < reduce.getInput().getType().getRank(); ++d) {
        if (llvm::is_contained(reduce.getAxes(), static_cast<int64_t>(d)))
          dims.block(reduce.getInput(), d);
        else
          dims.join(reduce.getInput(), d, reduce.getResult(), out++);
      }
      return;
    } else if (auto br = dyn_cast<BroadcastOp>(op)) {
      auto in = dyn_cast<RankedTensorType>(br.getInput().getType());
      dims.add(br.getResult());
      if (!in)
        return;
      auto out = br.getResult().getType();
      SmallVector<int64_t> map = br.getInputToResultDims();
      for (auto [i, d] : llvm::enumerate(map)) {
        if (in.getDimSize(i) == out.getDimSize(d))
          dims.join(br.getInput(), i, br.getResult(), d);
        else
          dims.block(br.getResult(), d);
      }
      return;
    } else if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      if (!dense || dense.isSplat())
        return;
    } else if (op->hasTrait<OpTrait::Elementwise>() ||
               isa<arith::SelectOp>(op)) {
      for (Value v : op->getOperands())
        if (isa<RankedTensorType>(v.getType()))
          for (Value r : op->getResults())
            dims.joinAll(v, r);
      return;
    } else if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      for (auto [v, r] : llvm::zip(yield.getOperands(), parent->getResults()))
        if (isa<RankedTensorType>(v.getType()))
          dims.joinAll(v, r);
      if (auto loop = dyn_cast<scf::ForOp>(parent))
        for (auto [v, a] : llvm::zip(yield.getOperands(), loop.getRegionIterArgs()))
          if (isa<RankedTensorType>(v.getType()))
            dims.joinAll(v, a);
      return;
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, a] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
        if (isa<RankedTensorType>(init.getType()))
          dims.joinAll(init, a);
      return;
    } else if (isa<scf::IfOp, ProgramIdOp, NumProgramsOp, ReturnOp>(op)) {
      return;
    }
    // Other ops with regions (scf.while): what their regions' arguments
    // carry is not followed, so it may not change. (The kernel's own are
    // its arguments.)
    if (op != kernel.getOperation())
      for (Region &r : op->getRegions())
        for (Block &blk : r)
          for (BlockArgument a : blk.getArguments())
            dims.block(a);
    if (op == kernel.getOperation())
      return;
    auto isShaped = [](Type t) { return isa<RankedTensorType, RefType>(t); };
    if (llvm::none_of(op->getOperandTypes(), isShaped) &&
        llvm::none_of(op->getResultTypes(), isShaped))
      return;
    // Anything else pins every dim it touches.
    for (Value v : op->getOperands())
      dims.block(v);
    for (Value v : op->getResults())
      dims.block(v);
  });
  return ok;
}

/// Whether `kernel` is a K loop as written: a sequential grid axis runs
/// a dot per program (its programs become one loop), or a dot of whole
/// blocks contracts a K that pallas-stream-dot-k turns into a loop
/// (longer than 128); and a CTA holds its output blocks in registers
/// (128 elements per thread, a tiled GEMM's 128 x 256 over 8 warps).
bool mlir::pallas::isKLoopAsWritten(KernelOp kernel, LaunchAttr launch) {
  bool sequential = llvm::any_of(launch.getDimensionSemantics(), [](DimensionSemantics s) {
    return s == DimensionSemantics::arbitrary;
  });
  bool dots = false, longK = false;
  kernel.walk([&](DotOp dot) {
    dots = true;
    auto a = cast<RankedTensorType>(dot.getLhs().getType());
    longK |= a.getRank() == 2 && a.getDimSize(1) > 128;
  });
  if (!dots || !(sequential || longK))
    return false;
  int64_t threads = 32 * std::max<int64_t>(1, launch.getNumWarps());
  for (BlockArgument arg : kernel.getBody().front().getArguments()) {
    BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
    if (spec && spec.getRole() == ArgRole::output &&
        ShapedType::getNumElements(shapeOf(arg.getType())) > 128 * threads)
      return false;
  }
  return true;
}

void mlir::pallas::setShape(Value v, ArrayRef<int64_t> shape) {
  Type t = v.getType();
  if (auto ref = dyn_cast<RefType>(t))
    v.setType(ref.withShape(shape));
  else
    v.setType(RankedTensorType::get(shape, cast<RankedTensorType>(t).getElementType()));
}

void mlir::pallas::retypeTensors(KernelOp kernel, function_ref<bool(Value)> retype) {
  kernel.walk([&](Operation *op) {
    for (Region &r : op->getRegions())
      for (Block &blk : r)
        for (BlockArgument a : blk.getArguments())
          if (isa<RankedTensorType>(a.getType()))
            retype(a);
    for (Value v : op->getResults()) {
      if (!isa<RankedTensorType>(v.getType()) || !retype(v))
        continue;
      if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
        auto dense = cast<DenseElementsAttr>(cst.getValue());
        cst.setValueAttr(DenseElementsAttr::get(cast<ShapedType>(v.getType()),
                                                dense.getSplatValue<Attribute>()));
      }
    }
  });
}
