//===- AsyncDots.cpp - a turn's dots run back to back, waited for once ----===//
//
// With pallas-defer-last-dot, a warpgroup's turn in attention's loop holds
// two dots, PV_{j-1} and QK^T_j. Waiting for each dot as it is issued
// drains the tensor cores between the two, and the refill of V's ring slot
// (pallas-stage-loads puts it after the slot's reader is done) waits for
// PV_{j-1} on the way. Issued without waiting, with one
// `pallas_gpu.dot_wait` after the turn, the two dots run back to back and
// the refills go out before them (measured +3-4 % on attention).
//
// Waiting for QK^T_j alone (one group left pending) so the softmax starts
// while PV_{j-1} runs, FA3's intra-warpgroup overlap, gains nothing here:
// ptxas gives the softmax's new P the registers the in-flight PV_{j-1}
// reads its A operand from, so it waits for PV_{j-1} before the
// exponentials regardless of where the wait is (bench/RESULTS.md).
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASASYNCDOTS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The turns of `body` (from a turn_take dot to the next turn_pass dot),
/// with their dots in body order.
SmallVector<SmallVector<tt::DotOp>> turnsIn(Block *body) {
  SmallVector<SmallVector<tt::DotOp>> turns;
  bool open = false;
  for (tt::DotOp dot : body->getOps<tt::DotOp>()) {
    if (dot->hasAttr(pgpu::kTurnTakeAttrName)) {
      turns.emplace_back();
      open = true;
    }
    if (open)
      turns.back().push_back(dot);
    if (dot->hasAttr(pgpu::kTurnPassAttrName))
      open = false;
  }
  return turns;
}

/// Issues `turn`'s dots without waiting; one wait after the last takes
/// all their results (pallas-warpgroup-turns put nothing between them that
/// reads one).
void makeAsync(ArrayRef<tt::DotOp> turn) {
  SmallVector<Value> results;
  for (tt::DotOp dot : turn) {
    dot->setAttr(pgpu::kAsyncDotAttrName, UnitAttr::get(dot->getContext()));
    results.push_back(dot.getResult());
  }
  OpBuilder b(turn.back());
  b.setInsertionPointAfter(turn.back());
  auto wait = pgpu::DotWaitOp::create(b, turn.back()->getLoc(), ValueRange(results).getTypes(),
                                      results, /*pending=*/0);
  for (auto [result, waited] : llvm::zip(results, wait.getResults()))
    result.replaceAllUsesExcept(waited, wait);
}

struct AsyncDotsPass : pallas::impl::PallasAsyncDotsBase<AsyncDotsPass> {
  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp loop) {
      for (ArrayRef<tt::DotOp> turn : turnsIn(loop.getBody())) {
        // dot_wait carries f32 accumulators (what wgmma produces).
        bool f32 = llvm::all_of(turn, [](tt::DotOp dot) {
          return cast<RankedTensorType>(dot.getType()).getElementType().isF32();
        });
        if (turn.size() >= 2 && f32)
          makeAsync(turn);
      }
    });
  }
};

} // namespace
