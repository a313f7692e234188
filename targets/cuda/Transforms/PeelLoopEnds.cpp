//===- PeelLoopEnds.cpp - first/last-iteration code leaves the loop -------===//
//
// A sequential grid axis becomes a loop whose body still says what the
// first and the last program do (`select(k == 0, zeros, acc)`, `if (k ==
// last) store`). With constant bounds the loop runs a known number of
// times, so both can leave it: the select's first value (or a first
// branch's, which only reads memory: C's block) becomes the loop's
// initial value, and the last branch runs after the loop on its results.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASPEELLOOPENDS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The induction values of `loop`'s first and last iterations, where its
/// bounds are constants and it runs at least once.
std::optional<std::pair<APInt, APInt>> firstAndLast(scf::ForOp loop) {
  APInt lb, ub, step;
  if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
      !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) ||
      !matchPattern(loop.getStep(), m_ConstantInt(&step)) || !step.isStrictlyPositive() ||
      !lb.slt(ub))
    return std::nullopt;
  APInt trips = (ub - lb + step - 1).sdiv(step);
  return std::make_pair(lb, lb + (trips - 1) * step);
}

/// Whether `cond` is `iv == value` (either side).
bool isInductionEquals(Value cond, Value iv, const APInt &value) {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return false;
  APInt c;
  return (cmp.getLhs() == iv && matchPattern(cmp.getRhs(), m_ConstantInt(&c)) && c == value) ||
         (cmp.getRhs() == iv && matchPattern(cmp.getLhs(), m_ConstantInt(&c)) && c == value);
}

/// select(iv == first, init, carried) -> carried, with init the loop's
/// initial value for it (init defined outside the loop; the select the
/// carried value's only use).
struct FirstIterationSelect : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp op, PatternRewriter &rw) const override {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    auto carried = dyn_cast<BlockArgument>(op.getFalseValue());
    std::optional<std::pair<APInt, APInt>> ends = loop ? firstAndLast(loop) : std::nullopt;
    if (!ends || !carried || carried.getOwner() != loop.getBody() ||
        carried == loop.getInductionVar() || !carried.hasOneUse() ||
        !isInductionEquals(op.getCondition(), loop.getInductionVar(), ends->first) ||
        loop->isAncestor(op.getTrueValue().getParentBlock()->getParentOp()) ||
        op.getTrueValue().getType() != carried.getType())
      return failure();
    unsigned i = carried.getArgNumber() - 1;
    rw.modifyOpInPlace(loop, [&] { loop.getInitArgsMutable()[i].assign(op.getTrueValue()); });
    rw.replaceOp(op, carried);
    return success();
  }
};

/// The ops of `loop`'s body that computing `region`'s operands from outside
/// it needs, in body order: pure ops reading, in the end, only values from
/// outside the loop, the induction variable and (`yielded`) values the body
/// yields. None when something else is read.
std::optional<SmallVector<Operation *>> bodyOpsFor(scf::ForOp loop, Region &region,
                                                  const DenseMap<Value, unsigned> &yielded) {
  SetVector<Operation *> recompute;
  std::function<bool(Value, int)> available = [&](Value v, int depth) -> bool {
    if (!loop->isAncestor(v.getParentBlock()->getParentOp()) || v == loop.getInductionVar() ||
        yielded.count(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || !isPure(def) || depth > 32)
      return false;
    if (recompute.contains(def))
      return true;
    for (Value operand : def->getOperands())
      if (!available(operand, depth + 1))
        return false;
    recompute.insert(def);
    return true;
  };
  Operation *owner = region.getParentOp();
  WalkResult r = region.walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (!owner->isAncestor(v.getParentBlock()->getParentOp()) && !available(v, 0))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return std::nullopt;
  SmallVector<Operation *> ordered(recompute.begin(), recompute.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Clones branch `op` of `loop`'s body at `rw`'s insertion point, for the
/// iteration whose induction value is `iv`: first the body ops it `needs`
/// (bodyOpsFor), then its own ops, with `map` (which may already map the
/// yielded values) completed for them.
void cloneBranchAt(PatternRewriter &rw, scf::IfOp op, scf::ForOp loop, const APInt &iv,
                   ArrayRef<Operation *> needs, IRMapping &map) {
  map.map(loop.getInductionVar(),
          arith::ConstantOp::create(rw, op.getLoc(),
                                    rw.getIntegerAttr(loop.getInductionVar().getType(), iv)));
  for (Operation *def : needs)
    rw.clone(*def, map);
  for (Operation &inner : op.thenBlock()->without_terminator())
    rw.clone(inner, map);
}

/// acc' = if (iv == first) { ... yield init } else { yield acc }, first
/// in the body, its branch only reading memory -> the branch before the
/// loop, its value the loop's initial one (a K loop whose accumulator
/// starts from C).
struct FirstIterationIf : OpRewritePattern<scf::IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(scf::IfOp op, PatternRewriter &rw) const override {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    std::optional<std::pair<APInt, APInt>> ends = loop ? firstAndLast(loop) : std::nullopt;
    if (!ends || op.getNumResults() != 1 || !op.elseBlock() ||
        !isInductionEquals(op.getCondition(), loop.getInductionVar(), ends->first))
      return failure();
    auto carried = dyn_cast<BlockArgument>(op.elseYield().getOperand(0));
    if (!carried || carried.getOwner() != loop.getBody() || carried == loop.getInductionVar() ||
        !carried.hasOneUse() || op.getResult(0).getType() != carried.getType())
      return failure();
    // Nothing before it in the body writes memory, nor does the branch.
    for (Operation *before = op->getPrevNode(); before; before = before->getPrevNode())
      if (!isPure(before))
        return failure();
    WalkResult writes = op.getThenRegion().walk([](Operation *inner) {
      return isa<tt::LoadOp>(inner) || isMemoryEffectFree(inner) ? WalkResult::advance()
                                                                 : WalkResult::interrupt();
    });
    if (writes.wasInterrupted())
      return failure();
    std::optional<SmallVector<Operation *>> needed =
        bodyOpsFor(loop, op.getThenRegion(), DenseMap<Value, unsigned>());
    if (!needed)
      return failure();
    rw.setInsertionPoint(loop);
    IRMapping map;
    cloneBranchAt(rw, op, loop, ends->first, *needed, map);
    Value init = map.lookupOrDefault(op.thenYield().getOperand(0));
    unsigned i = carried.getArgNumber() - 1;
    rw.modifyOpInPlace(loop, [&] { loop.getInitArgsMutable()[i].assign(init); });
    rw.replaceOp(op, carried);
    return success();
  }
};

/// if (iv == last) { ... } at the end of the body (only pure ops after
/// it), reading values from outside the loop, the induction variable,
/// values the body yields and what pure ops of the body compute from
/// those -> after the loop, on the loop's results (those ops recomputed
/// there).
struct LastIterationIf : OpRewritePattern<scf::IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(scf::IfOp op, PatternRewriter &rw) const override {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    std::optional<std::pair<APInt, APInt>> ends = loop ? firstAndLast(loop) : std::nullopt;
    if (!ends || op.getNumResults() || op.elseBlock() ||
        !isInductionEquals(op.getCondition(), loop.getInductionVar(), ends->second))
      return failure();
    for (Operation *after = op->getNextNode(); after && !isa<scf::YieldOp>(after);
         after = after->getNextNode())
      if (!isPure(after))
        return failure();
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    DenseMap<Value, unsigned> yielded;
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      yielded.try_emplace(v, i);
    std::optional<SmallVector<Operation *>> needed =
        bodyOpsFor(loop, op.getThenRegion(), yielded);
    if (!needed)
      return failure();
    rw.setInsertionPointAfter(loop);
    IRMapping map;
    for (auto [v, i] : yielded)
      map.map(v, loop.getResult(i));
    cloneBranchAt(rw, op, loop, ends->second, *needed, map);
    rw.eraseOp(op);
    return success();
  }
};

struct PeelLoopEndsPass : pallas::impl::PallasPeelLoopEndsBase<PeelLoopEndsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FirstIterationSelect, FirstIterationIf, LastIterationIf>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
