//===- FoldDotAdd.cpp - x + dot(a, b, 0) as dot(a, b, x) ------------------===//
//
// Tensor cores accumulate: an addition to a dot's result, when the dot
// starts from zero, is folded into the dot's accumulator so the
// per-element addition disappears.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASFOLDDOTADD
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// A dot starting from zero whose result has no other use.
tt::DotOp zeroStartedDot(Value v) {
  auto dot = v.getDefiningOp<tt::DotOp>();
  if (!dot || !dot->hasOneUse() || !dot.getType().getElementType().isF32() ||
      !matchPattern(dot.getC(), m_AnyZeroFloat()))
    return {};
  return dot;
}

struct AddToDot : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp op, PatternRewriter &rw) const override {
    Value addend = op.getRhs();
    tt::DotOp dot = zeroStartedDot(op.getLhs());
    if (!dot) {
      dot = zeroStartedDot(op.getRhs());
      addend = op.getLhs();
    }
    if (!dot || addend.getType() != dot.getType() || dot->getBlock() != op->getBlock())
      return failure();
    // The accumulator must exist where the dot runs: defined in an
    // enclosing region, or earlier in the block (the dot moves after it).
    if (auto arg = dyn_cast<BlockArgument>(addend)) {
      if (!arg.getOwner()->getParent()->isAncestor(dot->getParentRegion()))
        return failure();
    } else if (Operation *def = addend.getDefiningOp(); def->getBlock() == dot->getBlock()) {
      if (dot->isBeforeInBlock(def))
        rw.moveOpAfter(dot, def);
    } else if (!def->getParentRegion()->isAncestor(dot->getParentRegion())) {
      return failure();
    }
    rw.modifyOpInPlace(dot, [&] { dot.getCMutable().assign(addend); });
    rw.replaceOp(op, dot.getResult());
    return success();
  }
};

struct FoldDotAddPass : pallas::impl::PallasFoldDotAddBase<FoldDotAddPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddToDot>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
