//===- BlockViewOps.h - the views pallas.block and ref_slice make -*- C++ -*-===//
//
// For the lowerings that address refs through BlockViews (host, tile): the
// view each op that narrows a ref makes, added to the views of the kernel's
// refs. `offsetOf` gives an index operand's lowered value in the views'
// offset type.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_BLOCKVIEWOPS_H
#define PALLAS_PASSES_BLOCKVIEWOPS_H

#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/BlockView.h"

namespace mlir::pallas {

using RefViews = DenseMap<Value, BlockView>;

/// `pallas.block`: the view of the block of a ref in `views`.
LogicalResult addBlockView(OpBuilder &b, Location loc, RefViews &views, BlockOp op,
                           function_ref<Value(Value)> offsetOf);

/// `pallas.ref_slice` of a ref in `views` (the caller checks it is):
/// the view of the slice. Fails, with the error at `op`, for tensor
/// indexers, which select elements rather than a window.
LogicalResult addSliceView(OpBuilder &b, Location loc, RefViews &views, RefSliceOp op,
                           function_ref<Value(Value)> offsetOf);

} // namespace mlir::pallas

#endif
