//===- IndexMapToArith.cpp - index maps as arith ops ----------------------===//
#include "pallas/Spec/IndexMapToArith.h"

#include "pallas/Spec/SizeExpr.h"

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

static Value emitSize(OpBuilder &b, Location loc, const pallas_size::SizeExpr &e,
                      function_ref<Value(StringRef)> size) {
  using Kind = pallas_size::SizeExpr::Kind;
  if (e.kind == Kind::Constant)
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(e.value));
  if (e.kind == Kind::Name)
    return size(e.name);
  Value lhs = emitSize(b, loc, e.operands[0], size);
  Value rhs = emitSize(b, loc, e.operands[1], size);
  if (!lhs || !rhs)
    return {};
  switch (e.kind) {
  case Kind::Add:
    return arith::AddIOp::create(b, loc, lhs, rhs);
  case Kind::Sub:
    return arith::SubIOp::create(b, loc, lhs, rhs);
  case Kind::Mul:
    return arith::MulIOp::create(b, loc, lhs, rhs);
  case Kind::Cdiv:
    return arith::CeilDivSIOp::create(b, loc, lhs, rhs);
  case Kind::Min:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case Kind::Max:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  default:
    return {};
  }
}

FailureOr<Value> mlir::pallas::emitSizeExpr(OpBuilder &b, Location loc,
                                            StringRef text,
                                            function_ref<Value(StringRef)> size) {
  std::string error;
  size_t column = 0;
  std::optional<pallas_size::SizeExpr> e =
      pallas_size::SizeExpr::parse(text.str(), error, column);
  if (!e)
    return emitError(loc) << "size expression '" << text << "': " << error,
           failure();
  Value v = emitSize(b, loc, *e, size);
  if (!v)
    return emitError(loc) << "size expression '" << text
                          << "' names a size the launch does not have",
           failure();
  return v;
}
