//===- TritonLegalize.cpp - arith/math ops in forms Triton lowers ---------===//
//
// pallas-triton-legalize: each `math` op outside the set Triton lowers
// itself becomes a `tt.extern_elementwise` call of libdevice's `__nv_*`
// function (Triton's NVIDIA backend links libdevice for them); f16/bf16
// division runs in f32; negation becomes a subtraction from -0.0,
// arith.bitcast tt.bitcast, and f8 conversions tt.fp_to_fp.
//
//===----------------------------------------------------------------------===//
#include "pallas/Passes/ComputeInF32.h"
#include "pallas/Triton/TritonPasses.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASTRITONLEGALIZE
#include "pallas/Triton/TritonPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// `t` with its element type replaced (tensor or scalar).
Type withElement(Type t, Type element) {
  if (auto s = dyn_cast<ShapedType>(t))
    return s.clone(element);
  return element;
}

Value callLibdevice(PatternRewriter &rw, Location loc, StringRef symbol, Type resultType,
                    ValueRange args) {
  return tt::ExternElementwiseOp::create(rw, loc, resultType, args, rw.getStringAttr(""),
                                         rw.getStringAttr(""), rw.getStringAttr(symbol),
                                         rw.getBoolAttr(true))
      .getResult();
}

/// An f32 or f64 op with a libdevice function `__nv_<base>f` (f32) /
/// `__nv_<base>` (f64). f16 and bf16 ops reach it in f32 (ComputeInF32).
struct FloatToLibdevice : RewritePattern {
  FloatToLibdevice(MLIRContext *ctx, StringRef opName, StringRef base)
      : RewritePattern(opName, 1, ctx), base(base.str()) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rw) const override {
    Type type = op->getResult(0).getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isF32() && !element.isF64())
      return failure();
    std::string symbol = "__nv_" + base + (element.isF64() ? "" : "f");
    rw.replaceOp(op, callLibdevice(rw, op->getLoc(), symbol, type, op->getOperands()));
    return success();
  }
  std::string base;
};

/// ctlz, cttz, ctpop: libdevice's clz/ffs/popc (i32 results) on i32 or i64;
/// narrower integers are zero-extended to i32 and the count corrected.
template <typename OpTy>
struct BitCountToLibdevice : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    Type type = op.getType();
    auto element = cast<IntegerType>(getElementTypeOrSelf(type));
    unsigned width = element.getWidth();
    Location loc = op.getLoc();
    Type i32 = withElement(type, rw.getI32Type());
    Value x = op.getOperand();
    bool wide = width == 64;
    if (width < 32)
      x = arith::ExtUIOp::create(rw, loc, i32, x);
    auto constant = [&](Type t, int64_t v) { return createScalarOrSplatConstant(rw, loc, t, v); };
    std::string suffix = wide ? "ll" : "";
    Value r;
    if (std::is_same<OpTy, math::CountLeadingZerosOp>::value) {
      r = callLibdevice(rw, loc, "__nv_clz" + suffix, i32, x);
      if (width < 32)
        r = arith::SubIOp::create(rw, loc, r, constant(i32, 32 - width));
    } else if (std::is_same<OpTy, math::CtPopOp>::value) {
      r = callLibdevice(rw, loc, "__nv_popc" + suffix, i32, x);
    } else {
      // ffs is 1 + the index of the lowest set bit, 0 for 0: cttz(0) is the width.
      Value ffs = callLibdevice(rw, loc, "__nv_ffs" + suffix, i32, x);
      Value zero = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, ffs,
                                         constant(i32, 0));
      Value low = arith::SubIOp::create(rw, loc, ffs, constant(i32, 1));
      r = arith::SelectOp::create(rw, loc, zero, constant(i32, width), low);
    }
    if (width < 32)
      r = arith::TruncIOp::create(rw, loc, type, r);
    else if (wide)
      r = arith::ExtUIOp::create(rw, loc, type, r);
    rw.replaceOp(op, r);
    return success();
  }
};

/// -x as -0.0 - x (exact, signed zeros included): Triton has no lowering
/// of arith.negf (its front end writes negation as a subtraction).
struct NegateBySubtraction : OpRewritePattern<arith::NegFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::NegFOp op, PatternRewriter &rw) const override {
    Type element = getElementTypeOrSelf(op.getType());
    auto minusZero = rw.getFloatAttr(
        element, APFloat::getZero(cast<FloatType>(element).getFloatSemantics(), /*Negative=*/true));
    Value zero = arith::ConstantOp::create(
        rw, op.getLoc(),
        isa<ShapedType>(op.getType())
            ? (TypedAttr)DenseElementsAttr::get(cast<ShapedType>(op.getType()), minusZero)
            : (TypedAttr)minusZero);
    rw.replaceOpWithNewOp<arith::SubFOp>(op, zero, op.getOperand());
    return success();
  }
};

/// arith.bitcast as tt.bitcast, the form Triton lowers.
struct BitcastToTriton : OpRewritePattern<arith::BitcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::BitcastOp op, PatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<tt::BitcastOp>(op, op.getType(), op.getIn());
    return success();
  }
};

/// Conversions to and from f8 as tt.fp_to_fp (Triton lowers no arith
/// truncf/extf of f8); narrowing rounds to nearest even, as arith.truncf.
template <typename OpTy>
struct F8ConversionToTriton : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    Type from = getElementTypeOrSelf(op.getIn().getType());
    Type to = getElementTypeOrSelf(op.getType());
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(from) && !isa<Float8E4M3FNType, Float8E5M2Type>(to))
      return failure();
    tt::RoundingModeAttr rounding;
    if (std::is_same_v<OpTy, arith::TruncFOp>)
      rounding = tt::RoundingModeAttr::get(rw.getContext(), tt::RoundingMode::RTNE);
    rw.replaceOpWithNewOp<tt::FpToFpOp>(op, op.getType(), op.getIn(), rounding);
    return success();
  }
};

struct PallasTritonLegalizePass
    : pallas::impl::PallasTritonLegalizeBase<PallasTritonLegalizePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // Op -> libdevice base name, for the ops Triton 3.x does not lower.
    static const std::pair<const char *, const char *> kFloatOps[] = {
        {"math.acos", "acos"},       {"math.acosh", "acosh"},   {"math.asin", "asin"},
        {"math.asinh", "asinh"},     {"math.atan", "atan"},     {"math.atan2", "atan2"},
        {"math.atanh", "atanh"},     {"math.cbrt", "cbrt"},     {"math.copysign", "copysign"},
        {"math.cosh", "cosh"},       {"math.erfc", "erfc"},     {"math.expm1", "expm1"},
        {"math.log10", "log10"},     {"math.log1p", "log1p"},   {"math.powf", "pow"},
        {"math.round", "round"},     {"math.roundeven", "rint"}, {"math.sinh", "sinh"},
        {"math.tan", "tan"},         {"math.tanh", "tanh"},     {"math.trunc", "trunc"}};
    for (auto [op, base] : kFloatOps) {
      patterns.add<FloatToLibdevice>(ctx, op, base);
      patterns.add<ComputeInF32>(ctx, op);
    }
    // Triton divides only f32 and f64.
    patterns.add<ComputeInF32>(ctx, arith::DivFOp::getOperationName());
    patterns.add<ComputeInF32>(ctx, arith::RemFOp::getOperationName());
    patterns.add<BitCountToLibdevice<math::CountLeadingZerosOp>,
                 BitCountToLibdevice<math::CountTrailingZerosOp>,
                 BitCountToLibdevice<math::CtPopOp>, NegateBySubtraction, BitcastToTriton,
                 F8ConversionToTriton<arith::TruncFOp>, F8ConversionToTriton<arith::ExtFOp>>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
