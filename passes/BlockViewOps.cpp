//===- BlockViewOps.cpp - the views pallas.block and ref_slice make -------===//
#include "pallas/Passes/BlockViewOps.h"

using namespace mlir;
using namespace mlir::pallas;

LogicalResult mlir::pallas::addBlockView(OpBuilder &b, Location loc, RefViews &views,
                                         BlockOp op, function_ref<Value(Value)> offsetOf) {
  auto it = views.find(op.getRef());
  if (it == views.end())
    return op.emitOpError("block of an unknown ref");
  SmallVector<Value> indices;
  for (Value i : op.getIndices())
    indices.push_back(offsetOf(i));
  views[op.getResult()] = it->second.block(b, loc, indices, op.getBlockShape(),
                                           op.getSqueezed().value_or(ArrayRef<int64_t>()));
  return success();
}

LogicalResult mlir::pallas::addSliceView(OpBuilder &b, Location loc, RefViews &views,
                                         RefSliceOp op, function_ref<Value(Value)> offsetOf) {
  auto it = views.find(op.getRef());
  assert(it != views.end() && "ref_slice of a ref without a view");
  IndexerList list = IndexerList::decode(op.getIndexers())
                         .expandedFor(cast<RefType>(op.getRef().getType()).getRank());
  SmallVector<Value> operands;
  for (Value i : op.getIndices())
    operands.push_back(offsetOf(i));
  FailureOr<BlockView> out = it->second.slice(b, loc, list, operands);
  if (failed(out))
    return op.emitOpError("tensor indexers cannot make a view");
  views[op.getResult()] = *out;
  return success();
}
