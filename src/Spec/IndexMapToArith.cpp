//===- IndexMapToArith.cpp - index maps as arith ops ----------------------===//
#include "pallas/Spec/IndexMapToArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value mlir::pallas::emitAffineExpr(OpBuilder &b, Location loc, AffineExpr expr,
                                   ArrayRef<Value> dims) {
  Type i32 = b.getI32Type();
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, c.getValue()));
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  Value lhs = emitAffineExpr(b, loc, bin.getLHS(), dims);
  Value rhs = emitAffineExpr(b, loc, bin.getRHS(), dims);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::FloorDiv:
    return arith::FloorDivSIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::CeilDiv:
    return arith::CeilDivSIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mod: {
    // a mod b in [0, b): (a rem b + b) rem b.
    Value r = arith::RemSIOp::create(b, loc, lhs, rhs);
    Value shifted = arith::AddIOp::create(b, loc, r, rhs);
    return arith::RemSIOp::create(b, loc, shifted, rhs);
  }
  default:
    llvm_unreachable("symbols are rejected when the spec is loaded");
  }
}
