//===- BlockView.h - a ref as a window of a row-major array -----*- C++ -*-===//
//
// How the host and Triton lowerings (and the CUDA targets, which lower
// through Triton IR) address a ref: a base (memref or pointer) to a whole
// row-major array and a window of it. Each array dim is either fixed at one
// index or walked by one view dim with an offset, a stride and a size.
// `pallas.block` and `pallas.ref_slice` narrow views; offsets are values of
// one integer type (index on the host, i32 in Triton IR).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_BLOCKVIEW_H
#define PALLAS_PASSES_BLOCKVIEW_H

#include "pallas/Dialect/Indexers.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas {

struct BlockView {
  Value base;
  /// `ShapedType::kDynamic` for a symbolic size, whose value (offset type)
  /// is then in `arraySizes`.
  SmallVector<int64_t> arrayShape;
  /// Per array dim: the symbolic size's value, null where arrayShape holds
  /// the number. Empty when every dim is a number.
  SmallVector<Value> arraySizes;
  Type elementType;
  /// Per array dim: the index it is fixed at, or null when a view dim walks it.
  SmallVector<Value> fixed;
  struct Dim {
    unsigned arrayDim;
    Value offset;
    int64_t stride;
    int64_t size;
  };
  SmallVector<Dim> dims;

  /// The whole array behind `base`; `zero` is 0 of the offset type.
  static BlockView whole(Value base, ArrayRef<int64_t> shape, Type elementType,
                         Value zero);

  /// `pallas.block`: block `indices` (offset type) of `blockShape`; the
  /// `squeezed` dims become fixed.
  BlockView block(OpBuilder &b, Location loc, ValueRange indices,
                  ArrayRef<int64_t> blockShape, ArrayRef<int64_t> squeezed) const;

  /// `pallas.ref_slice`: `operands` (offset type) are those of the indexers
  /// that take one. Tensor indexers select elements, not a window: they fail.
  FailureOr<BlockView> slice(OpBuilder &b, Location loc, const IndexerList &list,
                             ValueRange operands) const;

  /// `offset + index * stride` of view dim `d`.
  Value at(OpBuilder &b, Location loc, const Dim &d, Value index) const;
  Value constant(OpBuilder &b, Location loc, int64_t v) const;
};

} // namespace mlir::pallas

#endif
