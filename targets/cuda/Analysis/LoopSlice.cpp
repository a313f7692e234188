//===- LoopSlice.cpp - what a loop body computes from its induction variable ===//
#include "Analysis/LoopSlice.h"

#include "pallas/Tile/Tile.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

/// A load of an index table: at most one dimension, not volatile.
static bool isTableLoad(Operation *op) {
  auto load = dyn_cast<pallas::tt::LoadOp>(op);
  if (!load || load.getIsVolatile())
    return false;
  auto type = dyn_cast<RankedTensorType>(load.getType());
  return !type || type.getRank() <= 1;
}

bool mlir::pallas::cuda::collectIndexSlice(scf::ForOp loop, ValueRange values,
                                           llvm::SetVector<Operation *> &slice,
                                           bool tableLoads) {
  SmallVector<Value> work(values.begin(), values.end());
  Block *body = loop.getBody();
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar())
        return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != body) {
      // Defined outside the loop, or nested in it.
      if (loop->isAncestor(def))
        return false;
      continue;
    }
    if (slice.contains(def))
      continue;
    if ((!isPure(def) && !(tableLoads && isTableLoad(def))) || def->getNumRegions() ||
        isa<tt::DotOp>(def))
      return false;
    slice.insert(def);
    for (Value o : def->getOperands())
      work.push_back(o);
  }
  return true;
}

bool mlir::pallas::cuda::inInnermostLoop(Operation *op) {
  auto loop = op->getParentOfType<scf::ForOp>();
  return loop && !loop.getBody()
                      ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
                      .wasInterrupted();
}
