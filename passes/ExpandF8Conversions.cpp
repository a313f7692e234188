//===- ExpandF8Conversions.cpp - f8 <-> f32 in integer arithmetic ---------===//
#include "pallas/Passes/ExpandF8Conversions.h"
#include "pallas/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASEXPANDF8CONVERSIONS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;

bool pallas::isF8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t));
}

namespace {

/// The parts of an f8 format: sign, `exponentBits`, `mantissaBits`.
struct F8Format {
  int64_t exponentBits, mantissaBits, bias;
  bool hasInfinity; // f8E5M2 (IEEE-like); f8E4M3FN has NaN only (all ones)
  static F8Format of(Type t) {
    if (isa<Float8E5M2Type>(getElementTypeOrSelf(t)))
      return {5, 2, 15, true};
    return {4, 3, 7, false};
  }
};

/// Builds elementwise arithmetic on values shaped like `like` (a scalar or a
/// shaped type), with constants splatted to that shape.
struct Elementwise {
  PatternRewriter &rw;
  Location loc;
  Type like;

  Type of(Type element) const {
    if (auto shaped = dyn_cast<ShapedType>(like))
      return shaped.clone(element);
    return element;
  }
  Value constant(Type element, TypedAttr scalar) const {
    if (auto shaped = dyn_cast<ShapedType>(like))
      return arith::ConstantOp::create(rw, loc,
                                       DenseElementsAttr::get(shaped.clone(element), scalar));
    return arith::ConstantOp::create(rw, loc, scalar);
  }
  Value i32(int64_t v) const {
    return constant(rw.getI32Type(), rw.getI32IntegerAttr(static_cast<int32_t>(v)));
  }
  Value f32(double v) const { return constant(rw.getF32Type(), rw.getF32FloatAttr(v)); }
  Value andi(Value a, int64_t m) const { return arith::AndIOp::create(rw, loc, a, i32(m)); }
  Value ori(Value a, Value b) const { return arith::OrIOp::create(rw, loc, a, b); }
  Value shl(Value a, int64_t s) const { return arith::ShLIOp::create(rw, loc, a, i32(s)); }
  Value shr(Value a, int64_t s) const { return arith::ShRUIOp::create(rw, loc, a, i32(s)); }
  Value add(Value a, Value b) const { return arith::AddIOp::create(rw, loc, a, b); }
  Value sub(Value a, Value b) const { return arith::SubIOp::create(rw, loc, a, b); }
  Value cmp(arith::CmpIPredicate p, Value a, Value b) const {
    return arith::CmpIOp::create(rw, loc, p, a, b);
  }
  Value select(Value c, Value a, Value b) const {
    return arith::SelectOp::create(rw, loc, c, a, b);
  }
  Value bitcast(Type element, Value v) const {
    return arith::BitcastOp::create(rw, loc, of(element), v);
  }
};

/// arith.extf from f8: the value as f32 bits (exact: every f8 value is an
/// f32), then extended or truncated (exactly) to the result type.
struct ExpandF8ExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rw) const override {
    Type from = op.getIn().getType();
    if (!pallas::isF8(from))
      return failure();
    F8Format f = F8Format::of(from);
    Elementwise e{rw, op.getLoc(), from};
    Type i32 = rw.getI32Type();
    Value bits = arith::ExtUIOp::create(rw, e.loc, e.of(i32), e.bitcast(rw.getI8Type(), op.getIn()));
    Value sign = e.shl(e.shr(bits, 7), 31);
    Value exponent = e.andi(e.shr(bits, f.mantissaBits), (1 << f.exponentBits) - 1);
    Value mantissa = e.andi(bits, (1 << f.mantissaBits) - 1);
    using P = arith::CmpIPredicate;
    // Normal: rebias the exponent, widen the mantissa.
    Value normal = e.ori(e.shl(e.add(exponent, e.i32(127 - f.bias)), 23),
                         e.shl(mantissa, 23 - f.mantissaBits));
    // Subnormal (and zero): mantissa * 2^(1 - bias - mantissaBits), exact in f32.
    Value scaled = arith::MulFOp::create(
        rw, e.loc, arith::UIToFPOp::create(rw, e.loc, e.of(rw.getF32Type()), mantissa),
        e.f32(std::ldexp(1.0, 1 - f.bias - f.mantissaBits)));
    Value subnormal = e.bitcast(i32, scaled);
    Value magnitude = e.select(e.cmp(P::eq, exponent, e.i32(0)), subnormal, normal);
    // NaN (and infinity): f32's all-ones exponent, the mantissa kept (a
    // NaN's stays non-zero); f8E4M3FN's only one is S.1111.111.
    int64_t allOnes = (1 << f.exponentBits) - 1;
    Value special =
        f.hasInfinity
            ? e.cmp(P::eq, exponent, e.i32(allOnes))
            : e.cmp(P::eq, e.andi(bits, 0x7F), e.i32(0x7F));
    Value specialBits = e.ori(e.i32(0x7F800000), e.shl(mantissa, 23 - f.mantissaBits));
    magnitude = e.select(special, specialBits, magnitude);
    Value asF32 = e.bitcast(rw.getF32Type(), e.ori(sign, magnitude));
    Type to = getElementTypeOrSelf(op.getType());
    if (to.isF32())
      rw.replaceOp(op, asF32);
    else if (to.getIntOrFloatBitWidth() > 32)
      rw.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), asF32);
    else
      rw.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), asF32);
    return success();
  }
};

/// arith.truncf to f8: from f32 (wider sources are truncated to f32 first,
/// narrower ones extended, exactly), rounded to nearest even.
struct ExpandF8TruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rw) const override {
    Type to = op.getType();
    if (!pallas::isF8(to) || pallas::isF8(op.getIn().getType()))
      return failure();
    if (op.getRoundingmodeAttr() &&
        op.getRoundingmodeAttr().getValue() != arith::RoundingMode::to_nearest_even)
      return rw.notifyMatchFailure(op, "only round-to-nearest-even is expanded");
    F8Format f = F8Format::of(to);
    Elementwise e{rw, op.getLoc(), to};
    Type f32 = e.of(rw.getF32Type()), i32 = rw.getI32Type();
    Value in = op.getIn();
    unsigned width = getElementTypeOrSelf(in.getType()).getIntOrFloatBitWidth();
    if (width > 32)
      in = arith::TruncFOp::create(rw, e.loc, f32, in);
    else if (width < 32 || !getElementTypeOrSelf(in.getType()).isF32())
      in = arith::ExtFOp::create(rw, e.loc, f32, in);
    Value bits = e.bitcast(i32, in);
    Value sign = e.shl(e.shr(bits, 31), 7);
    Value abs = e.andi(bits, 0x7FFFFFFF);
    using P = arith::CmpIPredicate;
    int64_t drop = 23 - f.mantissaBits;
    // Normal results: round the f32 bits at the kept mantissa's last bit
    // (ties to even), then rebias.
    Value odd = e.andi(e.shr(abs, drop), 1);
    Value rounded = e.add(abs, e.add(e.i32((1 << (drop - 1)) - 1), odd));
    Value normal = e.sub(e.shr(rounded, drop), e.i32((127 - f.bias) << f.mantissaBits));
    // Below the smallest normal: count units of the smallest subnormal,
    // rounded to even by f32's own addition (2^23 + q, q < 2^23).
    Value absF = e.bitcast(rw.getF32Type(), abs);
    Value units = arith::MulFOp::create(
        rw, e.loc, absF, e.f32(std::ldexp(1.0, f.bias - 1 + f.mantissaBits)));
    Value magic = arith::AddFOp::create(rw, e.loc, units, e.f32(8388608.0));
    Value subnormal = e.sub(e.bitcast(i32, magic), e.i32(0x4B000000));
    int64_t minNormalBits = (127 + 1 - f.bias) << 23;
    Value code = e.select(e.cmp(P::slt, abs, e.i32(minNormalBits)), subnormal, normal);
    // Too large: infinity (f8E5M2) or NaN (f8E4M3FN, which has none).
    int64_t maxFinite = f.hasInfinity ? 0x7B : 0x7E;
    int64_t overflow = f.hasInfinity ? 0x7C : 0x7F;
    int64_t nan = f.hasInfinity ? 0x7E : 0x7F;
    code = e.select(e.cmp(P::sgt, code, e.i32(maxFinite)), e.i32(overflow), code);
    code = e.select(e.cmp(P::sgt, abs, e.i32(0x7F800000)), e.i32(nan), code);
    Value byte = arith::TruncIOp::create(rw, e.loc, e.of(rw.getI8Type()), e.ori(sign, code));
    rw.replaceOpWithNewOp<arith::BitcastOp>(op, to, byte);
    return success();
  }
};

struct PallasExpandF8ConversionsPass
    : pallas::impl::PallasExpandF8ConversionsBase<PallasExpandF8ConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    pallas::populateExpandF8ConversionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void pallas::populateExpandF8ConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandF8ExtF, ExpandF8TruncF>(patterns.getContext());
}
