//===- RefAccess.cpp - indexed ref accesses as lowerings read them --------===//
#include "pallas/Passes/RefAccess.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::pallas;

RefWrite RefWrite::of(StoreOp op) {
  return {op, op.getRef(), op.getIndexers(), op.getIndices(), op.getValue(),
          op.getMask(), std::nullopt, /*returnsOld=*/false};
}

RefWrite RefWrite::of(SwapOp op) {
  return {op, op.getRef(), op.getIndexers(), op.getIndices(), op.getValue(),
          op.getMask(), std::nullopt, /*returnsOld=*/true};
}

RefWrite RefWrite::of(AtomicRMWOp op) {
  return {op, op.getRef(), op.getIndexers(), op.getIndices(), op.getValue(),
          op.getMask(), op.getKind(), /*returnsOld=*/true};
}

FailureOr<AccessShape> AccessShape::of(Operation *op, Value ref, ArrayRef<int64_t> indexers,
                                       ValueRange indices) {
  auto refType = cast<RefType>(ref.getType());
  AccessShape s;
  s.list = IndexerList::decode(indexers).expandedFor(refType.getRank());
  SmallVector<ArrayRef<int64_t>> tensorShapes;
  for (Value v : indices)
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      tensorShapes.push_back(t.getShape());
  for (ArrayRef<int64_t> t : tensorShapes) {
    SmallVector<int64_t> joined;
    OpTrait::util::getBroadcastedShape(s.advanced, t, joined);
    s.advanced = joined;
  }
  std::string error;
  if (failed(s.list.resultShape(refType.getShape(), tensorShapes, s.result, error)))
    return op->emitOpError(error);
  return s;
}
