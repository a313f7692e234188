//===- CloneLowering.cpp - rebuilding ops whose regions get lowered -------===//
#include "pallas/Passes/CloneLowering.h"

using namespace mlir;

LogicalResult mlir::pallas::cloneLoweringRegions(
    OpBuilder &b, Operation *op, IRMapping &values,
    function_ref<LogicalResult(Block &)> lowerBlock) {
  if (op->getNumRegions() == 0) {
    b.clone(*op, values);
    return success();
  }
  Operation *copy = b.cloneWithoutRegions(*op, values);
  OpBuilder::InsertionGuard guard(b);
  for (auto [src, dst] : llvm::zip(op->getRegions(), copy->getRegions())) {
    for (Block &block : src) {
      Block *nb = new Block();
      dst.push_back(nb);
      for (BlockArgument a : block.getArguments())
        values.map(a, nb->addArgument(a.getType(), a.getLoc()));
    }
    for (auto [sb, db] : llvm::zip(src, dst)) {
      b.setInsertionPointToEnd(&db);
      if (failed(lowerBlock(sb)))
        return failure();
    }
  }
  return success();
}
