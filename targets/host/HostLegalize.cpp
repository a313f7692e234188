//===- HostLegalize.cpp - no runtime libraries beyond libc and libm -------===//
//
// pallas-host-legalize: every memref.copy becomes a linalg.copy (loops, not
// a call of MLIR's runtime library), and f16/bf16 fma runs in f32 (not
// through compiler-rt's conversions).
//
//===----------------------------------------------------------------------===//
#include "pallas/Host/HostPasses.h"
#include "pallas/Passes/ComputeInF32.h"

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

struct PallasHostLegalizePass : pallas::impl::PallasHostLegalizeBase<PallasHostLegalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    patterns.add<pallas::ComputeInF32>(&getContext(), math::FmaOp::getOperationName());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
