//===- TritonLegalize.cpp - arith/math ops in forms Triton lowers ---------===//
//
// pallas-triton-legalize: each `math` op outside the set Triton lowers
// itself becomes a `tt.extern_elementwise` call of libdevice's `__nv_*`
// function (Triton's NVIDIA backend links libdevice for them); f16/bf16
// division runs in f32.
//
//===----------------------------------------------------------------------===//
#include "pallas/Triton/TritonPasses.h"
#include "pallas/Triton/Triton.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// A float op with a libdevice function `__nv_<base>f` (f32) / `__nv_<base>`
/// (f64); f16 and bf16 go through f32.
struct FloatToLibdevice : RewritePattern {
  FloatToLibdevice(MLIRContext *ctx, StringRef opName, StringRef base)
      : RewritePattern(opName, 1, ctx), base(base.str()) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rw) const override {
    Type type = op->getResult(0).getType();
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!element)
      return failure();
    Location loc = op->getLoc();
    bool f64 = element.isF64();
    Type f32 = rw.getF32Type();
    SmallVector<Value> args;
    for (Value v : op->getOperands())
      args.push_back(f64 || element.isF32()
                         ? v
                         : arith::ExtFOp::create(rw, loc, withElement(v.getType(), f32), v)
                               .getResult());
    Type callType = f64 || element.isF32() ? type : withElement(type, f32);
    Value r = callLibdevice(rw, loc, "__nv_" + base + (f64 ? "" : "f"), callType, args);
    if (callType != type)
      r = arith::TruncFOp::create(rw, loc, type, r);
    rw.replaceOp(op, r);
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
    auto constant = [&](Type t, int64_t v) -> Value {
      Type e = getElementTypeOrSelf(t);
      TypedAttr attr = rw.getIntegerAttr(e, v);
      if (auto s = dyn_cast<ShapedType>(t))
        attr = DenseElementsAttr::get(s, attr);
      return arith::ConstantOp::create(rw, loc, attr);
    };
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

/// divf/remf of 16-bit floats: in f32, then truncated.
template <typename OpTy>
struct SmallFloatInF32 : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    Type type = op.getType();
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!element || element.getWidth() != 16)
      return failure();
    Location loc = op.getLoc();
    Type f32 = withElement(type, rw.getF32Type());
    Value lhs = arith::ExtFOp::create(rw, loc, f32, op.getLhs());
    Value rhs = arith::ExtFOp::create(rw, loc, f32, op.getRhs());
    Value r = OpTy::create(rw, loc, lhs, rhs);
    rw.replaceOpWithNewOp<arith::TruncFOp>(op, type, r);
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
    for (auto [op, base] : kFloatOps)
      patterns.add<FloatToLibdevice>(ctx, op, base);
    patterns.add<BitCountToLibdevice<math::CountLeadingZerosOp>,
                 BitCountToLibdevice<math::CountTrailingZerosOp>,
                 BitCountToLibdevice<math::CtPopOp>, SmallFloatInF32<arith::DivFOp>,
                 SmallFloatInF32<arith::RemFOp>>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
