//===- HostCopiesToLinalg.cpp - memref.copy as linalg.copy for the host ---===//
//
// pallas-host-copies-to-linalg: every memref.copy becomes a linalg.copy, so
// that convert-linalg-to-loops lowers it to loops instead of a call into
// MLIR's runtime library (which host artifacts do not link).
//
//===----------------------------------------------------------------------===//
#include "pallas/Passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASHOSTCOPIESTOLINALG
#include "pallas/Passes/Passes.h.inc"
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

struct PallasHostCopiesToLinalgPass
    : pallas::impl::PallasHostCopiesToLinalgBase<PallasHostCopiesToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
