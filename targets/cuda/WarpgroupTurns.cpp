//===- WarpgroupTurns.cpp - warpgroups take turns at a loop's dots --------===//
//
// FA3's "ping-pong": with two warpgroups each computing its own rows of an
// attention block, the tensor cores idle while both run their softmax at
// the same time. Taking turns at issuing the dots staggers the warpgroups
// by half an iteration, so one's softmax runs under the other's GEMMs.
//
//===----------------------------------------------------------------------===//
#include "SimtLowering.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASWARPGROUPTURNS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

/// The wgmma dots of `loop`'s body (not nested deeper: every warpgroup
/// reaches each of them once per iteration), when several warpgroups share
/// them and there is more than one: work between dots to overlap.
SmallVector<tt::DotOp> turnDots(scf::ForOp loop) {
  SmallVector<tt::DotOp> dots;
  for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>()) {
    auto enc = dyn_cast_or_null<pgpu::WgmmaEncodingAttr>(
        cast<RankedTensorType>(dot.getType()).getEncoding());
    if (!enc)
      return {};
    if (enc.getWarps() < 8)
      return {};
    dots.push_back(dot);
  }
  if (dots.size() < 2)
    return {};
  return dots;
}

struct WarpgroupTurnsPass : pallas::impl::PallasWarpgroupTurnsBase<WarpgroupTurnsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SmallVector<tt::DotOp> dots = turnDots(loop);
      if (dots.empty())
        continue;
      for (tt::DotOp dot : dots)
        dot->setAttr(pgpu::kTurnAttrName, UnitAttr::get(&getContext()));
      OpBuilder b(loop);
      pgpu::TurnsBeginOp::create(b, loop.getLoc());
      b.setInsertionPointAfter(loop);
      pgpu::TurnsEndOp::create(b, loop.getLoc());
    }
  }
};

} // namespace
