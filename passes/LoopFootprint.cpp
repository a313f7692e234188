//===- LoopFootprint.cpp - the elements a loop holds at once --------------===//

#include "pallas/Passes/LoopFootprint.h"

using namespace mlir;

int64_t mlir::pallas::loopHeldElements(scf::ForOp loop, function_ref<int64_t(Value)> counted) {
  int64_t carried = 0;
  for (Value v : loop.getRegionIterArgs())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      carried += t.getNumElements();
  int64_t first = 0, second = 0;
  loop.getBody()->walk([&](Operation *op) {
    for (Value v : op->getResults()) {
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      int64_t n = counted(v);
      if (n > first)
        std::swap(n, first);
      second = std::max(second, n);
    }
  });
  return carried + first + second;
}
