//===- Pipeline.cpp - issue a loop's global loads one iteration ahead -----===//
//
// In tile IR, a loop that streams blocks from global memory
//
//   for k: a = load(p(k)); ... use(a)
//
// becomes
//
//   a0 = load(p(lb))
//   for k (a = a0): a' = load(p(min(k + step, ub - 1))); ... use(a); yield a'
//
// so each iteration's loads are in flight while the previous block is
// computed on (software pipelining with the loaded values carried in
// registers). Only loads whose addresses and masks depend on the induction
// variable and loop invariants through pure ops are moved. Every load keeps
// its own bounds mask, so the extra loads (before an empty loop, at the
// last iteration) stay inside their arrays; their values are not used.
//
//===----------------------------------------------------------------------===//
#include "pallas/Passes/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASPIPELINE
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The ops of `loop`'s body that `values` depend on, in body order; false
/// when one of them is not pure or reads another loop-carried value.
bool collectSlice(scf::ForOp loop, ValueRange values, SetVector<Operation *> &slice) {
  SmallVector<Value> work(values.begin(), values.end());
  Block *body = loop.getBody();
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar())
        return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != body) {
      // Defined outside the loop, or nested in it.
      if (loop->isAncestor(def))
        return false;
      continue;
    }
    if (slice.contains(def))
      continue;
    if (!isPure(def) || def->getNumRegions())
      return false;
    slice.insert(def);
    for (Value o : def->getOperands())
      work.push_back(o);
  }
  return true;
}

/// Clones the loads' slices and the loads with the induction variable
/// replaced by `iv`.
SmallVector<Value> cloneLoads(OpBuilder &b, ArrayRef<tt::LoadOp> loads,
                              ArrayRef<Operation *> slice, scf::ForOp loop, Value iv) {
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, map);
  SmallVector<Value> out;
  for (tt::LoadOp load : loads)
    out.push_back(b.clone(*load, map)->getResult(0));
  return out;
}

void pipeline(scf::ForOp loop, int64_t threads, int64_t registerBudget) {
  // A loop that writes memory may write what a later iteration reads:
  // loading that early would read the old value.
  bool writes = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(op))
      writes = true;
  });
  if (writes)
    return;
  SmallVector<tt::LoadOp> loads;
  SetVector<Operation *> slice;
  for (Operation &op : *loop.getBody()) {
    auto load = dyn_cast<tt::LoadOp>(op);
    if (!load || load.getIsVolatile() || !isa<RankedTensorType>(load.getType()))
      continue;
    SetVector<Operation *> s;
    if (!collectSlice(loop, load->getOperands(), s))
      continue;
    loads.push_back(load);
    slice.insert(s.begin(), s.end());
  }
  if (loads.empty())
    return;
  // Two blocks of each load live at once: leave loops alone whose blocks
  // and carried values would not fit the registers of a thread.
  auto regs = [&](Type t) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return 0;
    int64_t bits = isa<tt::PointerType>(tensor.getElementType())
                       ? 64
                       : tensor.getElementType().getIntOrFloatBitWidth();
    return tensor.getNumElements() * std::max<int64_t>(bits, 32) / 32 / threads;
  };
  int64_t loaded = 0, carried = 0;
  for (tt::LoadOp load : loads)
    loaded += regs(load.getType());
  for (Value v : loop.getRegionIterArgs())
    carried += regs(v.getType());
  if (2 * loaded + carried > registerBudget)
    return;
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  SmallVector<Value> initial = cloneLoads(b, loads, ordered, loop, lb);

  SmallVector<Value> inits(loop.getInitArgs());
  inits.append(initial);
  auto newLoop = scf::ForOp::create(b, loc, lb, ub, step, inits);
  Block *newBody = newLoop.getBody();
  Block *oldBody = loop.getBody();
  // Move the old body over; old iter args map to the first new ones.
  newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
  loop.getInductionVar().replaceAllUsesWith(newLoop.getInductionVar());
  for (auto [o, n] : llvm::zip(loop.getRegionIterArgs(), newLoop.getRegionIterArgs()))
    o.replaceAllUsesWith(n);
  auto yield = cast<scf::YieldOp>(newBody->getTerminator());
  // The next iteration's loads, issued first thing in the body.
  b.setInsertionPointToStart(newBody);
  Value iv = newLoop.getInductionVar();
  // The last iteration loads a block inside the iteration space again
  // (min(iv + step, ub - 1)) rather than one past its end: no extra mask,
  // and the index stays in the loop's range, so bounds checks that always
  // hold still fold away.
  Value next = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, iv, step),
      arith::SubIOp::create(b, loc, ub, arith::ConstantIntOp::create(b, loc, iv.getType(), 1)));
  // The slice ops now live in the new body; clone from them with iv -> next.
  SmallVector<Value> prefetched = cloneLoads(b, loads, ordered, newLoop, next);
  size_t numOld = loop.getNumRegionIterArgs();
  for (auto [i, load] : llvm::enumerate(loads)) {
    load.getResult().replaceAllUsesWith(newLoop.getRegionIterArgs()[numOld + i]);
    load.erase();
  }
  SmallVector<Value> yielded(yield.getOperands());
  yielded.append(prefetched);
  b.setInsertionPoint(yield);
  scf::YieldOp::create(b, yield.getLoc(), yielded);
  yield.erase();
  for (auto [o, n] : llvm::zip(loop.getResults(), newLoop.getResults()))
    o.replaceAllUsesWith(n);
  loop.erase();
}

struct PipelinePass : pallas::impl::PallasPipelineBase<PipelinePass> {
  using PallasPipelineBase::PallasPipelineBase;
  void runOnOperation() override {
    if (numStages < 2)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
      if (innermost && loop.getInductionVar().getType().isInteger(32))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      pipeline(loop, 32 * numWarps, /*registerBudget=*/200);
  }
};

} // namespace
