//===- ExpandF8Conversions.h - f8 <-> f32 in integer arithmetic -*- C++ -*-===//
//
// LLVM has no 8-bit float types, so a backend that lowers through LLVM
// (the host) cannot convert f8E4M3FN / f8E5M2 values with an instruction.
// These patterns rewrite arith.extf from an f8 type and arith.truncf to one
// into integer and f32 arithmetic on the bits, with the semantics of
// ml_dtypes (what JAX computes): round to nearest even, subnormals kept,
// f8E4M3FN has no infinity (overflow and infinities become NaN), f8E5M2
// overflows to infinity. Scalars and shaped values alike.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_EXPANDF8CONVERSIONS_H
#define PALLAS_PASSES_EXPANDF8CONVERSIONS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::pallas {

/// Whether `t` (or its element type) is one of the f8 types pallas has.
bool isF8(Type t);

void populateExpandF8ConversionPatterns(RewritePatternSet &patterns);

} // namespace mlir::pallas

#endif
