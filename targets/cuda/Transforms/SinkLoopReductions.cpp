//===- SinkLoopReductions.cpp - reduce once after a loop, not per iteration ===//
//
//   for i: acc = acc + reduce(x_i)     ->    for i: t = t + x_i
//                                            acc = acc0 + reduce(t)
//
// for a carried `acc` that nothing else in the body reads, where reduce
// combines with the op that accumulates (addf, maximumf, maxnumf,
// minimumf, minnumf). The carried tile costs the registers x takes
// already; the reduction's exchange through shared memory and its
// barriers run once.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASSINKLOOPREDUCTIONS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

bool isCombiner(Operation *op) {
  return isa<arith::AddFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
             arith::MinNumFOp>(op);
}

/// The one op of a tt.reduce's combiner (its two block arguments in,
/// returned), or null.
Operation *reduceCombiner(tt::ReduceOp reduce) {
  if (reduce->getNumOperands() != 1 || reduce->getNumResults() != 1)
    return nullptr;
  Block &body = reduce.getCombineOp().front();
  if (body.getNumArguments() != 2 || !llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  Operation *op = &body.front();
  auto ret = dyn_cast<tt::ReduceReturnOp>(body.getTerminator());
  if (!isCombiner(op) || !ret || ret->getNumOperands() != 1 ||
      ret->getOperand(0) != op->getResult(0))
    return nullptr;
  bool args = (op->getOperand(0) == body.getArgument(0) &&
               op->getOperand(1) == body.getArgument(1)) ||
              (op->getOperand(0) == body.getArgument(1) &&
               op->getOperand(1) == body.getArgument(0));
  return args ? op : nullptr;
}

/// A carried value that only accumulates reductions: iter arg `index` of
/// `loop` is yielded as `combine(arg, reduce(x))`, its only use.
struct Accumulation {
  unsigned index;
  Operation *combine;
  tt::ReduceOp reduce;
};

std::optional<Accumulation> accumulation(scf::ForOp loop, unsigned index) {
  BlockArgument arg = loop.getRegionIterArgs()[index];
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Operation *combine = yield.getOperand(index).getDefiningOp();
  if (!combine || !isCombiner(combine) || combine->getBlock() != loop.getBody() ||
      !arg.hasOneUse() || arg.use_begin()->getOwner() != combine || !combine->hasOneUse())
    return std::nullopt;
  Value other = combine->getOperand(0) == arg ? combine->getOperand(1) : combine->getOperand(0);
  auto reduce = other.getDefiningOp<tt::ReduceOp>();
  if (!reduce || !reduce->hasOneUse() || reduce->getBlock() != loop.getBody())
    return std::nullopt;
  Operation *combiner = reduceCombiner(reduce);
  if (!combiner || combiner->getName() != combine->getName() ||
      !isa<RankedTensorType>(reduce->getResult(0).getType()))
    return std::nullopt;
  return Accumulation{index, combine, reduce};
}

/// The identity of `combine` for a tile of `type` (0 for sums; for max
/// and min, the tile's first iteration would do, but -inf/+inf is exact).
Value identity(OpBuilder &b, Location loc, Operation *combine, RankedTensorType type) {
  auto elem = cast<FloatType>(type.getElementType());
  APFloat value = APFloat::getZero(elem.getFloatSemantics());
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combine))
    value = APFloat::getInf(elem.getFloatSemantics(), /*Negative=*/true);
  else if (isa<arith::MinimumFOp, arith::MinNumFOp>(combine))
    value = APFloat::getInf(elem.getFloatSemantics(), /*Negative=*/false);
  return arith::ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, value));
}

/// `lhs op rhs` for the combining op `name` (with `attrs`), of lhs's type.
Value combine(OpBuilder &b, Location loc, OperationName name, Value lhs, Value rhs,
              ArrayRef<NamedAttribute> attrs = {}) {
  OperationState state(loc, name);
  state.addOperands({lhs, rhs});
  state.addTypes(lhs.getType());
  state.addAttributes(attrs);
  return b.create(state)->getResult(0);
}

void sink(scf::ForOp loop) {
  SmallVector<Accumulation> found;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (std::optional<Accumulation> a = accumulation(loop, i))
      found.push_back(*a);
  if (found.empty())
    return;
  IRRewriter rw(loop.getContext());
  rw.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (const Accumulation &a : found)
    inits.push_back(identity(rw, loc, a.combine,
                             cast<RankedTensorType>(a.reduce->getOperand(0).getType())));
  // Each tile accumulates in the body; the old carried values pass through.
  auto yieldTiles = [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> tiles) {
    SmallVector<Value> out;
    for (auto [a, tile] : llvm::zip(found, tiles))
      out.push_back(combine(b, l, a.combine->getName(), tile, a.reduce->getOperand(0),
                            a.combine->getAttrs()));
    return out;
  };
  FailureOr<LoopLikeOpInterface> replaced =
      loop.replaceWithAdditionalYields(rw, inits, /*replaceInitOperandUsesInLoop=*/false,
                                       yieldTiles);
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  unsigned first = newLoop.getNumResults() - found.size();
  rw.setInsertionPointAfter(newLoop);
  // (The body moved into the new loop: `found`'s ops are its ops.)
  for (auto [k, acc] : llvm::enumerate(found)) {
    // The per-iteration combine and reduction go; the carried value passes
    // through (canonicalization drops it).
    rw.modifyOpInPlace(yield, [&, index = acc.index] {
      yield.setOperand(index, newLoop.getRegionIterArgs()[index]);
    });
    // Once, after the loop: reduce the tile, combine with the start value.
    IRMapping map;
    map.map(acc.reduce->getOperand(0), newLoop.getResult(first + k));
    Value total = rw.clone(*acc.reduce, map)->getResult(0);
    Value result = combine(rw, loc, acc.combine->getName(), newLoop.getInitArgs()[acc.index],
                           total);
    rw.eraseOp(acc.combine);
    rw.eraseOp(acc.reduce);
    rw.replaceAllUsesWith(newLoop.getResult(acc.index), result);
  }
}

struct SinkLoopReductionsPass
    : pallas::impl::PallasSinkLoopReductionsBase<SinkLoopReductionsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      sink(loop);
  }
};

} // namespace
