//===- IndexMapToArith.h - index maps as arith ops --------------*- C++ -*-===//
#ifndef PALLAS_SPEC_INDEXMAPTOARITH_H
#define PALLAS_SPEC_INDEXMAPTOARITH_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"

namespace mlir::pallas {

/// Emits one result of an index map, `expr` over i32 `dims` (the program
/// ids or grid indices), as arith ops with affine floordiv/ceildiv/mod
/// semantics. Index maps have no symbols (the spec loader rejects them).
Value emitAffineExpr(OpBuilder &b, Location loc, AffineExpr expr, ArrayRef<Value> dims);

/// Emits a size expression (SizeExpr.h, as `text`, which the spec loader
/// has checked) as arith ops on the i64 values `size` gives for each name.
/// Fails on text that does not parse (hand-written IR).
FailureOr<Value> emitSizeExpr(OpBuilder &b, Location loc, StringRef text,
                              function_ref<Value(StringRef)> size);

} // namespace mlir::pallas

#endif
