//===- StreamDotK.cpp - dots of whole blocks become loops over K ----------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASSTREAMDOTK
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {
/// A whole, unmasked 2-D load used only by `user`.
static LoadOp wholeLoadOnlyFor(Value v, Operation *user) {
  auto load = v.getDefiningOp<LoadOp>();
  if (!load || !load.getIndexers().empty() || load.getMask() ||
      !load->hasOneUse() || *load->user_begin() != user ||
      cast<RankedTensorType>(load.getResult().getType()).getRank() != 2)
    return {};
  return load;
}

struct StreamDot : OpRewritePattern<DotOp> {
  StreamDot(MLIRContext *ctx, int64_t chunk) : OpRewritePattern(ctx), chunk(chunk) {}

  LogicalResult matchAndRewrite(DotOp dot, PatternRewriter &rewriter) const override {
    if (dot.getTransposeLhs() || dot.getTransposeRhs())
      return failure();
    LoadOp a = wholeLoadOnlyFor(dot.getLhs(), dot), b = wholeLoadOnlyFor(dot.getRhs(), dot);
    if (!a || !b || a == b)
      return failure();
    auto aType = cast<RankedTensorType>(a.getResult().getType());
    auto bType = cast<RankedTensorType>(b.getResult().getType());
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
    if (k <= chunk || k % chunk != 0)
      return failure();
    // The loads move to the dot: nothing between may write their refs.
    if (a->getBlock() != dot->getBlock() || b->getBlock() != dot->getBlock())
      return failure();
    Operation *first = a->isBeforeInBlock(b) ? a : b;
    for (Operation *op = first; op != dot; op = op->getNextNode()) {
      WalkResult writes = op->walk([&](Operation *inner) {
        if (isa<StoreOp, SwapOp, AtomicRMWOp, AtomicCASOp, AsyncCopyOp>(inner))
          for (Value v : inner->getOperands())
            if (v == a.getRef() || v == b.getRef())
              return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (writes.wasInterrupted())
        return failure();
    }
    Location loc = dot.getLoc();
    // Loads must stay after the dot's other operands: build at the dot.
    rewriter.setInsertionPoint(dot);
    auto resultType = dot.getResult().getType();
    Value init = dot.getAcc()
                     ? dot.getAcc()
                     : (Value)arith::ConstantOp::create(
                           rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(resultType)));
    Value c0 = arith::ConstantIntOp::create(rewriter, loc, 0, 32);
    Value steps = arith::ConstantIntOp::create(rewriter, loc, k / chunk, 32);
    Value c1 = arith::ConstantIntOp::create(rewriter, loc, 1, 32);
    Value cChunk = arith::ConstantIntOp::create(rewriter, loc, chunk, 32);
    auto aRef = cast<RefType>(a.getRef().getType());
    auto bRef = cast<RefType>(b.getRef().getType());
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, steps, c1, ValueRange{init},
        [&](OpBuilder &ob, Location l, Value iv, ValueRange iter) {
          Value off = arith::MulIOp::create(ob, l, iv, cChunk);
          IndexerList aIdx, bIdx;
          aIdx.push({IndexerKind::Full});
          aIdx.push({IndexerKind::Slice, 0, chunk, 1});
          bIdx.push({IndexerKind::Slice, 0, chunk, 1});
          bIdx.push({IndexerKind::Full});
          (void)aRef;
          (void)bRef;
          auto la = LoadOp::create(
              ob, l, RankedTensorType::get({m, chunk}, aType.getElementType()), a.getRef(),
              ValueRange{off}, ob.getDenseI64ArrayAttr(aIdx.encode()), Value(), Value());
          auto lb = LoadOp::create(
              ob, l, RankedTensorType::get({chunk, n}, bType.getElementType()), b.getRef(),
              ValueRange{off}, ob.getDenseI64ArrayAttr(bIdx.encode()), Value(), Value());
          auto part = DotOp::create(ob, l, resultType, la, lb, iter[0],
                                    dot.getPrecisionAttr(), dot.getTransposeLhsAttr(),
                                    dot.getTransposeRhsAttr());
          scf::YieldOp::create(ob, l, part.getResult());
        });
    rewriter.replaceOp(dot, loop.getResult(0));
    rewriter.eraseOp(a);
    rewriter.eraseOp(b);
    return success();
  }

  int64_t chunk;
};

struct StreamDotKPass : public pallas::impl::PallasStreamDotKBase<StreamDotKPass> {
  using PallasStreamDotKBase::PallasStreamDotKBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StreamDot>(&getContext(), kChunk);
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // Only the rewrite, no folding of the rest of the kernel.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
