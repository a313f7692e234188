//===- FoldExpScale.cpp - softmax exponentials as exp2 of one FMA ---------===//
//
// On CUDA `exp(a)` is `ex2.approx(a * log2e)`. In a row softmax,
// `exp(x * c - broadcast(m))` then costs a multiply, a subtraction and a
// multiply per element before the ex2; folding c and log2(e) into one FMA
// against the row vector `m * -log2e` leaves one FMA, as flash attention
// kernels write it by hand. A row max of `x * c` (c > 0) is the row max of x
// times c, so x * c itself is no longer needed. Kernels that take exp2
// themselves (Pallas:MGPU's attention: `exp2(s * c - m)`, c holding
// log2(e)) get the same FMA against `-m`. A scale known at run time only
// (a splat scalar) folds into the exponential's FMA too, its product with
// log2(e) once; its row max becomes a uniform branch on the scale's sign,
// the positive arm max(x) * s.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASFOLDEXPSCALE
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

constexpr double kLog2e = 1.4426950408889634;

/// The value of a splat f32 constant tensor (arith.constant or tt.splat of
/// a constant).
std::optional<double> splatValue(Value v) {
  DenseFPElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<APFloat>().convertToDouble();
  if (auto splat = v.getDefiningOp<tt::SplatOp>()) {
    FloatAttr f;
    if (matchPattern(splat.getSrc(), m_Constant(&f)))
      return f.getValueAsDouble();
  }
  return std::nullopt;
}

/// `v` as `x * c` with c a splat constant: {x, c}.
std::optional<std::pair<Value, double>> asScaled(Value v) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  if (std::optional<double> c = splatValue(mul.getRhs()))
    return std::make_pair(mul.getLhs(), *c);
  if (std::optional<double> c = splatValue(mul.getLhs()))
    return std::make_pair(mul.getRhs(), *c);
  return std::nullopt;
}

/// `v` as `x * splat(s)` with s an f32 scalar known at run time only:
/// {x, the splat}.
std::optional<std::pair<Value, tt::SplatOp>> asScaledByScalar(Value v) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())})
    if (auto splat = c.getDefiningOp<tt::SplatOp>(); splat && splat.getSrc().getType().isF32())
      return std::make_pair(x, splat);
  return std::nullopt;
}

Value splatLike(PatternRewriter &rw, Location loc, Type type, double value) {
  auto shaped = cast<ShapedType>(type);
  return arith::ConstantOp::create(
      rw, loc, DenseElementsAttr::get(shaped, rw.getFloatAttr(shaped.getElementType(), value)));
}

/// select(k, x * c, d) with c > 0 and d a splat constant  ->
/// select(k, x, d / c) * c: a causal mask applied to scaled scores leaves
/// the scale outside, where the row max and the exponential fold it in.
struct SelectOfScaled : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp op, PatternRewriter &rw) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return failure();
    std::optional<std::pair<Value, double>> scaled = asScaled(op.getTrueValue());
    std::optional<double> other = splatValue(op.getFalseValue());
    if (!scaled || !other || !(scaled->second > 0) || !op.getTrueValue().hasOneUse())
      return failure();
    Location loc = op.getLoc();
    Value masked = arith::SelectOp::create(rw, loc, op.getCondition(), scaled->first,
                                           splatLike(rw, loc, type, *other / scaled->second));
    rw.replaceOpWithNewOp<arith::MulFOp>(op, masked,
                                         splatLike(rw, loc, type, scaled->second));
    return success();
  }
};

/// A max reduction of one tensor to a tensor (a row max).
bool isRowMax(tt::ReduceOp op) {
  if (op.getSrcs().size() != 1 || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  Block &body = op.getCombineOp().front();
  return body.getOperations().size() == 2 &&
         isa<arith::MaximumFOp, arith::MaxNumFOp>(body.front());
}

/// max(x * c, axis) with c > 0  ->  max(x, axis) * c.
struct MaxOfScaled : OpRewritePattern<tt::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ReduceOp op, PatternRewriter &rw) const override {
    if (!isRowMax(op))
      return failure();
    std::optional<std::pair<Value, double>> scaled = asScaled(op.getSrcs()[0]);
    if (!scaled || !(scaled->second > 0))
      return failure();
    Location loc = op.getLoc();
    IRMapping map;
    map.map(op.getSrcs()[0], scaled->first);
    Operation *reduce = rw.clone(*op, map);
    Value result = reduce->getResult(0);
    rw.replaceOpWithNewOp<arith::MulFOp>(
        op, result, splatLike(rw, loc, result.getType(), scaled->second));
    return success();
  }
};

/// max(x * s, axis) with s a scalar known at run time only  ->
///   s > 0 ? max(x, axis) * s : max(x * s, axis)
/// (a uniform branch; the first arm is the one that runs for positive
/// scales, fp8 attention's descales, and leaves x * s to the other arm,
/// where the exponential's FMA no longer needs it). Exact for every s.
struct MaxOfScaledByScalar : OpRewritePattern<tt::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ReduceOp op, PatternRewriter &rw) const override {
    if (!isRowMax(op))
      return failure();
    std::optional<std::pair<Value, tt::SplatOp>> scaled = asScaledByScalar(op.getSrcs()[0]);
    if (!scaled)
      return failure();
    auto [x, splat] = *scaled;
    Value scalar = splat.getSrc();
    // Already the other arm of such a branch.
    if (auto parent = dyn_cast<scf::IfOp>(op->getParentOp()))
      if (auto cmp = parent.getCondition().getDefiningOp<arith::CmpFOp>();
          cmp && cmp.getPredicate() == arith::CmpFPredicate::OGT && cmp.getLhs() == scalar)
        return failure();
    Location loc = op.getLoc();
    Value positive = arith::CmpFOp::create(
        rw, loc, arith::CmpFPredicate::OGT, scalar,
        arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(0.0)));
    Type rowType = op->getResult(0).getType();
    auto ifOp = scf::IfOp::create(rw, loc, TypeRange{rowType}, positive, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      IRMapping map;
      map.map(op.getSrcs()[0], x);
      Value max = rw.clone(*op, map)->getResult(0);
      Value row = tt::SplatOp::create(rw, loc, rowType, scalar);
      scf::YieldOp::create(rw, loc, ValueRange{arith::MulFOp::create(rw, loc, max, row)});
      rw.setInsertionPointToStart(ifOp.elseBlock());
      Value scaledHere = rw.clone(*op.getSrcs()[0].getDefiningOp())->getResult(0);
      IRMapping other;
      other.map(op.getSrcs()[0], scaledHere);
      scf::YieldOp::create(rw, loc, rw.clone(*op, other)->getResults());
    }
    rw.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// `x - broadcast(expand_dims(m))`: a row vector m taken from every row.
struct RowShifted {
  Value x;
  tt::ExpandDimsOp expand;
  tt::BroadcastOp broadcast;
  Value row() { return expand.getSrc(); }
};
std::optional<RowShifted> asRowShifted(Value v) {
  auto sub = v.getDefiningOp<arith::SubFOp>();
  auto bcast = sub ? sub.getRhs().getDefiningOp<tt::BroadcastOp>() : tt::BroadcastOp();
  auto expand = bcast ? bcast.getSrc().getDefiningOp<tt::ExpandDimsOp>() : tt::ExpandDimsOp();
  if (!expand)
    return std::nullopt;
  return RowShifted{sub.getLhs(), expand, bcast};
}

/// Row vector `row` (the shape of `shift`'s) broadcast as `shift`'s is.
Value broadcastLike(PatternRewriter &rw, RowShifted &shift, Value row) {
  IRMapping map;
  map.map(shift.row(), row);
  Value expanded = rw.clone(*shift.expand, map)->getResult(0);
  map.map(shift.expand.getResult(), expanded);
  return rw.clone(*shift.broadcast, map)->getResult(0);
}

/// exp(x * c - broadcast(expand_dims(m)))  ->
///   exp2(fma(x, c * log2e, broadcast(expand_dims(m * -log2e)))).
struct ExpOfRowShifted : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op, PatternRewriter &rw) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return failure();
    std::optional<RowShifted> shift = asRowShifted(op.getOperand());
    if (!shift)
      return failure();
    Value x = shift->x;
    Location loc = op.getLoc();
    Value factor;
    if (std::optional<std::pair<Value, double>> scaled = asScaled(x)) {
      x = scaled->first;
      factor = splatLike(rw, loc, type, scaled->second * kLog2e);
    } else if (std::optional<std::pair<Value, tt::SplatOp>> scaled = asScaledByScalar(x)) {
      // A scale known at run time only (fp8 attention's descales): its
      // product with log2(e) once, where the scale is splat.
      auto [y, splat] = *scaled;
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointAfter(splat);
      Value scalar = splat.getSrc();
      Value times = arith::MulFOp::create(
          rw, loc, scalar, arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(kLog2e)));
      factor = tt::SplatOp::create(rw, loc, type, times);
      x = y;
    } else {
      factor = splatLike(rw, loc, type, kLog2e);
    }
    Value m = shift->row();
    Value shifted = broadcastLike(
        rw, *shift, arith::MulFOp::create(rw, loc, m, splatLike(rw, loc, m.getType(), -kLog2e)));
    Value arg = math::FmaOp::create(rw, loc, x, factor, shifted);
    auto flags = arith::FastMathFlagsAttr::get(
        rw.getContext(), arith::FastMathFlags::afn | arith::FastMathFlags::arcp);
    // (exp2 flushes subnormal results on CUDA, as Triton's does: here the
    // argument is at most 0, x * c less the row's max of it, and such
    // results are nothing beside the row's 1.)
    rw.replaceOpWithNewOp<math::Exp2Op>(op, arg, flags);
    return success();
  }
};

/// exp2(x * c - broadcast(expand_dims(m)))  ->
///   exp2(fma(x, c, broadcast(expand_dims(-m)))): one FMA per element
/// where there were a multiply and a subtraction (the row's negation is
/// once per row).
struct Exp2OfRowShifted : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op, PatternRewriter &rw) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return failure();
    std::optional<RowShifted> shift = asRowShifted(op.getOperand());
    std::optional<std::pair<Value, double>> scaled =
        shift ? asScaled(shift->x) : std::nullopt;
    if (!scaled)
      return failure();
    Location loc = op.getLoc();
    Value shifted = broadcastLike(rw, *shift, arith::NegFOp::create(rw, loc, shift->row()));
    Value arg = math::FmaOp::create(rw, loc, scaled->first,
                                    splatLike(rw, loc, type, scaled->second), shifted);
    rw.modifyOpInPlace(op, [&] { op->setOperand(0, arg); });
    return success();
  }
};

struct FoldExpScalePass : pallas::impl::PallasFoldExpScaleBase<FoldExpScalePass> {
  void runOnOperation() override {
    // Masks first: the other rewrites must see the scale behind them.
    RewritePatternSet masks(&getContext());
    masks.add<SelectOfScaled>(&getContext());
    RewritePatternSet patterns(&getContext());
    patterns.add<MaxOfScaled, MaxOfScaledByScalar, ExpOfRowShifted, Exp2OfRowShifted>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(masks))) ||
        failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
