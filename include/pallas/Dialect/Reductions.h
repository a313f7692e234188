//===- Reductions.h - what each pallas.reduce kind computes ----*- C++ -*-===//
//
// One definition of the reduction kinds' arithmetic for every lowering:
// the combiner of two elements and the neutral element.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DIALECT_REDUCTIONS_H
#define PALLAS_DIALECT_REDUCTIONS_H

#include "pallas/Dialect/Pallas.h"

namespace mlir::pallas {

/// `x <kind> y` on two scalars of the same type. Floats use maximumf /
/// minimumf (NaN propagates, as in jnp.max); i1 max/min are or/and.
Value buildReductionCombiner(OpBuilder &b, Location loc, ReductionKind kind,
                             Value x, Value y);

/// The neutral element of `kind` for `elementType` (0, 1, -inf, +inf, the
/// integer extremes, or all ones).
TypedAttr reductionIdentity(ReductionKind kind, Type elementType);

/// reductionIdentity as an arith.constant.
Value buildReductionIdentity(OpBuilder &b, Location loc, ReductionKind kind,
                             Type elementType);

} // namespace mlir::pallas

#endif
