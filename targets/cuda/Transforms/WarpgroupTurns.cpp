//===- WarpgroupTurns.cpp - warpgroups take turns at a loop's dots --------===//
//
// FA3's "ping-pong": with two warpgroups each computing its own rows of an
// attention block, the tensor cores idle while both run their softmax at
// the same time. Taking turns at issuing the dots staggers the warpgroups
// by half an iteration, so one's softmax runs under the other's GEMMs.
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/Patterns.h"
#include "Transforms/StageLoads.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Tile/Tile.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASWARPGROUPTURNS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Whether the body exchanges values through shared memory behind
/// barriers every consumer warp meets: a vector broadcast along a tile's
/// columns (attention backward's row statistics over transposed scores),
/// a dot's A transposed out of registers, a column reduction. Staggered by turns, one
/// warpgroup would wait there for the other, which waits for its turn.
bool exchangesEveryIteration(scf::ForOp loop) {
  bool found = false;
  loop.getBody()->walk([&](Operation *op) {
    if (auto bcast = dyn_cast<tt::BroadcastOp>(op))
      found |= cuda::broadcastUsesScratch(bcast);
    if (auto dot = dyn_cast<tt::DotOp>(op)) {
      auto trans = dot.getA().getDefiningOp<tt::TransOp>();
      found |= trans && trans.getSrc().getDefiningOp<tensor::CastOp>();
    }
    // (A reduction along columns crosses the warpgroups.)
    if (auto reduce = dyn_cast<tt::ReduceOp>(op))
      found |= reduce.getAxis() == 0 &&
               cast<RankedTensorType>(reduce.getOperand(0).getType()).getRank() == 2;
  });
  return found;
}

/// The wgmma dots of `loop`'s body (not nested deeper: every warpgroup
/// reaches each of them once per iteration), when several warpgroups share
/// them and there is more than one: work between dots to overlap.
SmallVector<tt::DotOp> turnDots(scf::ForOp loop) {
  if (exchangesEveryIteration(loop))
    return {};
  SmallVector<tt::DotOp> dots;
  for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>()) {
    auto enc = dyn_cast_or_null<pgpu::WgmmaEncodingAttr>(
        cast<RankedTensorType>(dot.getType()).getEncoding());
    if (!enc)
      return {};
    // (Warpgroups splitting a dot's columns share its operands: no turns.)
    if (enc.getWarps() < 8 || enc.getColumnGroups() > 1)
      return {};
    dots.push_back(dot);
  }
  if (dots.size() < 2)
    return {};
  return dots;
}

/// The dots issued in one turn: each maximal run of dots (in body order)
/// with nothing between them that reads a result of the run. Dots side by
/// side (pallas-defer-last-dot puts attention's PV beside the next QK^T)
/// keep the tensor cores busy for both while the other warpgroups run
/// their softmax.
SmallVector<SmallVector<tt::DotOp>> turnsOf(ArrayRef<tt::DotOp> dots) {
  SmallVector<SmallVector<tt::DotOp>> turns;
  for (tt::DotOp dot : dots) {
    bool joins = false;
    if (!turns.empty()) {
      DenseSet<Value> issued;
      for (tt::DotOp d : turns.back())
        issued.insert(d.getResult());
      joins = true;
      for (Operation *op = turns.back().back()->getNextNode(); op; op = op->getNextNode()) {
        op->walk([&](Operation *nested) {
          for (Value v : nested->getOperands())
            joins &= !issued.contains(v);
        });
        if (op == dot.getOperation())
          break;
      }
    }
    if (joins)
      turns.back().push_back(dot);
    else
      turns.push_back({dot});
  }
  return turns;
}

struct WarpgroupTurnsPass : pallas::impl::PallasWarpgroupTurnsBase<WarpgroupTurnsPass> {
  using PallasWarpgroupTurnsBase::PallasWarpgroupTurnsBase;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SmallVector<tt::DotOp> dots = turnDots(loop);
      if (dots.empty() || (sharedBytes > 0 && !cuda::dotBlocksFitRings(loop, sharedBytes)))
        continue;
      for (ArrayRef<tt::DotOp> turn : turnsOf(dots)) {
        turn.front()->setAttr(pgpu::kTurnTakeAttrName, UnitAttr::get(&getContext()));
        turn.back()->setAttr(pgpu::kTurnPassAttrName, UnitAttr::get(&getContext()));
      }
      OpBuilder b(loop);
      pgpu::TurnsBeginOp::create(b, loop.getLoc());
      b.setInsertionPointAfter(loop);
      pgpu::TurnsEndOp::create(b, loop.getLoc());
    }
  }
};

} // namespace
