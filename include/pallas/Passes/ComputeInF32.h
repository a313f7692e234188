//===- ComputeInF32.h - 16-bit float ops computed in f32 --------*- C++ -*-===//
//
// One rewrite for backends whose code generation cannot compute an op on
// f16/bf16 directly (Triton's division and libdevice calls, the host's fma
// without compiler-rt): the operands are extended to f32, the same op runs
// on f32, and its result is truncated back.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_COMPUTEINF32_H
#define PALLAS_PASSES_COMPUTEINF32_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::pallas {

/// Rewrites ops named `opName` whose result is a 16-bit float (scalar or
/// tensor) into the same op on f32 between arith.extf and arith.truncf.
/// Every operand must be of the result's type (elementwise ops).
struct ComputeInF32 : RewritePattern {
  ComputeInF32(MLIRContext *ctx, StringRef opName) : RewritePattern(opName, 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override;
};

} // namespace mlir::pallas

#endif
