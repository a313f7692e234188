//===- UnrollLoadLoops.cpp - more loads in flight in latency-bound loops --===//
//
// A loop that loads a few elements per thread each iteration and does
// little with them runs at the memory latency: its threads have one
// iteration's loads in flight (pallas-stage-loads prefetches one ahead).
// Unrolled by kFactor, kFactor iterations' loads go out together.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Layouts.h"
#include "pallas/Cuda/CudaPasses.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASUNROLLLOADLOOPS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

constexpr uint64_t kFactor = 4;
/// Loads of at most this many elements per thread (each) are latency-bound.
constexpr int64_t kMaxLoadElementsPerThread = 4;
/// Bodies of at most this many ops (before unrolling) are unrolled.
constexpr int64_t kMaxBodyOps = 96;

bool worthUnrolling(scf::ForOp loop) {
  LaunchAttr launch = launchOf(loop);
  if (!launch)
    return false;
  int64_t threads = 32 * launch.getNumWarps();
  int64_t ops = 0;
  bool loads = false, ok = true;
  loop.getBody()->walk([&](Operation *op) {
    ++ops;
    if (isa<scf::ForOp, scf::WhileOp, tt::DotOp>(op) && op != loop)
      ok = false;
    if (auto load = dyn_cast<tt::LoadOp>(op)) {
      auto type = dyn_cast<RankedTensorType>(load.getType());
      if (!type || type.getNumElements() > kMaxLoadElementsPerThread * threads)
        ok = false;
      loads = true;
    }
    // Loops with pallas_gpu ops (rings, barriers) are someone else's.
    if (op->getDialect() && op->getDialect()->getNamespace() == "pallas_gpu")
      ok = false;
  });
  APInt lb, ub, step;
  bool constantTrips = matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
                       matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) &&
                       matchPattern(loop.getStep(), m_ConstantInt(&step));
  // Constant trip counts of at least two unrolled iterations: no
  // remainder loop to guard at run time, none to unroll for nothing.
  return ok && loads && ops <= kMaxBodyOps && constantTrips && step.isStrictlyPositive() &&
         (ub - lb).sdiv(step).getSExtValue() >= static_cast<int64_t>(2 * kFactor);
}

struct UnrollLoadLoopsPass : pallas::impl::PallasUnrollLoadLoopsBase<UnrollLoadLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (worthUnrolling(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      (void)loopUnrollByFactor(loop, kFactor);
  }
};

} // namespace
