//===- HostLegalize.cpp - no runtime libraries beyond libc and libm -------===//
//
// pallas-host-legalize: every memref.copy becomes a linalg.copy (loops, not
// a call of MLIR's runtime library), and f16/bf16 fma runs in f32 (not
// through compiler-rt's conversions).
//
//===----------------------------------------------------------------------===//
#include "pallas/Host/HostPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASHOSTLEGALIZE
#include "pallas/Host/HostPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;

namespace {
struct CopyToLinalg : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::CopyOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(), op.getTarget());
    return success();
  }
};

struct SmallFloatFmaInF32 : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!element || element.getWidth() >= 32)
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    if (auto shaped = dyn_cast<ShapedType>(type))
      f32 = shaped.clone(f32);
    SmallVector<Value> wide;
    for (Value v : op->getOperands())
      wide.push_back(arith::ExtFOp::create(rewriter, loc, f32, v));
    Value r = math::FmaOp::create(rewriter, loc, wide[0], wide[1], wide[2]);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, r);
    return success();
  }
};

struct PallasHostLegalizePass : pallas::impl::PallasHostLegalizeBase<PallasHostLegalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg, SmallFloatFmaInF32>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
