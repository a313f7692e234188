//===- FoldTrueMasks.cpp - drop masks that keep every element ------------===//
//
// A bounds mask (`row < M`, `col < N`, `batch < B`) that integer range
// analysis proves true for every element goes away: the load, store or
// atomic becomes unmasked. What the analysis knows comes from the tt ops' range
// interfaces (program ids below the grid, iotas, splats) and upstream
// arith and scf.for (induction variables within their bounds).
//
//===----------------------------------------------------------------------===//
#include "Analysis/IntegerRanges.h"

#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Tile/Tile.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASFOLDTRUEMASKS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Whether every element of the i1 value `mask` is known to be true.
bool alwaysTrue(DataFlowSolver &solver, Value mask) {
  std::optional<ConstantIntRanges> range = cuda::knownRange(solver, mask);
  return range && range->umin().getBitWidth() == 1 && range->umin().isOne();
}

struct FoldTrueMasksPass : pallas::impl::PallasFoldTrueMasksBase<FoldTrueMasksPass> {
  void runOnOperation() override {
    DataFlowSolver solver;
    if (failed(cuda::runIntegerRangeAnalysis(solver, getOperation())))
      return signalPassFailure();
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<tt::LoadOp>(op)) {
        if (load.getMask() && alwaysTrue(solver, load.getMask())) {
          load.getMaskMutable().clear();
          load.getOtherMutable().clear();
        }
      } else if (auto store = dyn_cast<tt::StoreOp>(op)) {
        if (store.getMask() && alwaysTrue(solver, store.getMask()))
          store.getMaskMutable().clear();
      } else if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op)) {
        if (rmw.getMask() && alwaysTrue(solver, rmw.getMask()))
          rmw.getMaskMutable().clear();
      }
    });
  }
};

} // namespace
