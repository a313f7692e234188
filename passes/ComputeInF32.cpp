//===- ComputeInF32.cpp - 16-bit float ops computed in f32 ----------------===//
#include "pallas/Passes/ComputeInF32.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

LogicalResult pallas::ComputeInF32::matchAndRewrite(Operation *op,
                                                    PatternRewriter &rewriter) const {
  if (op->getNumResults() != 1)
    return failure();
  Type type = op->getResult(0).getType();
  auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (!element || element.getWidth() != 16 ||
      llvm::any_of(op->getOperandTypes(), [&](Type t) { return t != type; }))
    return failure();
  Location loc = op->getLoc();
  Type f32 = rewriter.getF32Type();
  if (auto shaped = dyn_cast<ShapedType>(type))
    f32 = shaped.clone(f32);
  SmallVector<Value> wide;
  for (Value v : op->getOperands())
    wide.push_back(arith::ExtFOp::create(rewriter, loc, f32, v));
  Operation *inF32 = rewriter.create(loc, op->getName().getIdentifier(), wide, {f32},
                                     op->getAttrs());
  rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, inF32->getResult(0));
  return success();
}
