//===- Reductions.cpp - what each pallas.reduce kind computes -------------===//
#include "pallas/Dialect/Reductions.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::pallas;

Value mlir::pallas::buildReductionCombiner(OpBuilder &b, Location loc,
                                           ReductionKind kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  bool boolean = x.getType().isInteger(1);
  switch (kind) {
  case ReductionKind::sum:
    return isFloat ? (Value)arith::AddFOp::create(b, loc, x, y)
                   : (Value)arith::AddIOp::create(b, loc, x, y);
  case ReductionKind::prod:
    return isFloat ? (Value)arith::MulFOp::create(b, loc, x, y)
                   : (Value)arith::MulIOp::create(b, loc, x, y);
  case ReductionKind::max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    return boolean ? (Value)arith::MaxUIOp::create(b, loc, x, y)
                   : (Value)arith::MaxSIOp::create(b, loc, x, y);
  case ReductionKind::min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, y);
    return boolean ? (Value)arith::MinUIOp::create(b, loc, x, y)
                   : (Value)arith::MinSIOp::create(b, loc, x, y);
  case ReductionKind::and_:
    return arith::AndIOp::create(b, loc, x, y);
  case ReductionKind::or_:
    return arith::OrIOp::create(b, loc, x, y);
  case ReductionKind::xor_:
    return arith::XOrIOp::create(b, loc, x, y);
  }
  llvm_unreachable("reduction kind");
}

TypedAttr mlir::pallas::reductionIdentity(ReductionKind kind, Type elt) {
  Builder b(elt.getContext());
  if (auto f = dyn_cast<FloatType>(elt)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    llvm::APFloat v = llvm::APFloat::getZero(sem);
    if (kind == ReductionKind::prod)
      v = llvm::APFloat::getOne(sem);
    if (kind == ReductionKind::max)
      v = llvm::APFloat::getInf(sem, /*Negative=*/true);
    if (kind == ReductionKind::min)
      v = llvm::APFloat::getInf(sem, /*Negative=*/false);
    return b.getFloatAttr(elt, v);
  }
  unsigned w = elt.getIntOrFloatBitWidth();
  bool boolean = w == 1;
  llvm::APInt v = llvm::APInt::getZero(w);
  switch (kind) {
  case ReductionKind::prod:
    v = llvm::APInt(w, 1);
    break;
  case ReductionKind::max:
    v = boolean ? llvm::APInt::getZero(w) : llvm::APInt::getSignedMinValue(w);
    break;
  case ReductionKind::min:
    v = boolean ? llvm::APInt::getAllOnes(w) : llvm::APInt::getSignedMaxValue(w);
    break;
  case ReductionKind::and_:
    v = llvm::APInt::getAllOnes(w);
    break;
  default:
    break;
  }
  return b.getIntegerAttr(elt, v);
}

Value mlir::pallas::buildReductionIdentity(OpBuilder &b, Location loc,
                                           ReductionKind kind, Type elt) {
  return arith::ConstantOp::create(b, loc, reductionIdentity(kind, elt));
}
