//===- CloneLowering.cpp - rebuilding ops whose regions get lowered -------===//
#include "pallas/Passes/CloneLowering.h"

using namespace mlir;

LogicalResult mlir::pallas::cloneLoweringRegions(
    OpBuilder &b, Operation *op, IRMapping &values,
    function_ref<LogicalResult(Block &)> lowerBlock,
    function_ref<Type(Type)> convertType) {
  auto converted = [&](Type t) { return convertType ? convertType(t) : t; };
  Operation *copy = b.cloneWithoutRegions(*op, values);
  for (OpResult r : copy->getResults())
    r.setType(converted(r.getType()));
  OpBuilder::InsertionGuard guard(b);
  for (auto [src, dst] : llvm::zip(op->getRegions(), copy->getRegions())) {
    for (Block &block : src) {
      Block *nb = new Block();
      dst.push_back(nb);
      for (BlockArgument a : block.getArguments())
        values.map(a, nb->addArgument(converted(a.getType()), a.getLoc()));
    }
    for (auto [sb, db] : llvm::zip(src, dst)) {
      b.setInsertionPointToEnd(&db);
      if (failed(lowerBlock(sb)))
        return failure();
    }
  }
  return success();
}
