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
/// An unmasked 2-D load of a 2-D ref used only by `user` that reads all of
/// dim `kDim` (the dot's K) and a unit-stride slice, or all, of the other
/// (`x_ref[...]`, `x_ref[pl.ds(i, bm), :]`): its indexers, expanded.
static std::optional<IndexerList> kWholeLoadOnlyFor(Value v, Operation *user, unsigned kDim) {
  auto load = v.getDefiningOp<LoadOp>();
  if (!load || load.getMask() || !load->hasOneUse() || *load->user_begin() != user ||
      cast<RankedTensorType>(load.getResult().getType()).getRank() != 2)
    return std::nullopt;
  auto ref = cast<RefType>(load.getRef().getType());
  if (ref.getRank() != 2)
    return std::nullopt;
  IndexerList list = IndexerList::decode(load.getIndexers()).expandedFor(2);
  ArrayRef<Indexer> items = list.get();
  const Indexer &k = items[kDim], &other = items[1 - kDim];
  bool wholeK = k.kind == IndexerKind::Full ||
                (k.kind == IndexerKind::SliceConst && k.start == 0 && k.stride == 1 &&
                 k.size == ref.getShape()[kDim]);
  bool sliceOther = other.kind == IndexerKind::Full ||
                    ((other.kind == IndexerKind::Slice || other.kind == IndexerKind::SliceConst) &&
                     other.stride == 1);
  if (!wholeK || !sliceOther)
    return std::nullopt;
  return list;
}

struct StreamDot : OpRewritePattern<DotOp> {
  StreamDot(MLIRContext *ctx, int64_t chunk) : OpRewritePattern(ctx), chunk(chunk) {}

  LogicalResult matchAndRewrite(DotOp dot, PatternRewriter &rewriter) const override {
    if (dot.getTransposeLhs() || dot.getTransposeRhs())
      return failure();
    std::optional<IndexerList> aList = kWholeLoadOnlyFor(dot.getLhs(), dot, 1);
    std::optional<IndexerList> bList = kWholeLoadOnlyFor(dot.getRhs(), dot, 0);
    if (!aList || !bList)
      return failure();
    auto a = dot.getLhs().getDefiningOp<LoadOp>(), b = dot.getRhs().getDefiningOp<LoadOp>();
    if (a == b)
      return failure();
    auto aType = cast<RankedTensorType>(a.getResult().getType());
    auto bType = cast<RankedTensorType>(b.getResult().getType());
    int64_t k = aType.getDimSize(1);
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
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, steps, c1, ValueRange{init},
        [&](OpBuilder &ob, Location l, Value iv, ValueRange iter) {
          Value off = arith::MulIOp::create(ob, l, iv, cChunk);
          // The same rows (columns) as before, K in chunks.
          auto chunked = [&](LoadOp load, const IndexerList &list, unsigned kDim,
                             RankedTensorType type) {
            IndexerList idx;
            SmallVector<Value> operands;
            for (unsigned d = 0; d < 2; ++d) {
              const Indexer &i = list.get()[d];
              if (d == kDim) {
                idx.push({IndexerKind::Slice, 0, chunk, 1});
                operands.push_back(off);
              } else {
                idx.push(i);
                if (i.takesOperand())
                  operands.push_back(load.getIndices().front());
              }
            }
            SmallVector<int64_t> shape(type.getShape());
            shape[kDim] = chunk;
            return LoadOp::create(ob, l, RankedTensorType::get(shape, type.getElementType()),
                                  load.getRef(), operands, ob.getDenseI64ArrayAttr(idx.encode()),
                                  Value(), Value());
          };
          auto la = chunked(a, *aList, 1, aType);
          auto lb = chunked(b, *bList, 0, bType);
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
