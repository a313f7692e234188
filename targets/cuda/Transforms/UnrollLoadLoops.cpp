//===- UnrollLoadLoops.cpp - more loads in flight in latency-bound loops --===//
//
// A loop that loads a few elements per thread each iteration and does
// little with them runs at the memory latency: its threads have one
// iteration's loads in flight (pallas-stage-loads prefetches one ahead).
// Unrolled by a factor (4 to 16) that puts about kBytesInFlightPerThread
// in flight, that many iterations' loads go out together.
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

/// Unrolled until about this many bytes a thread are in flight: with JAX's
/// layer_norm backward dw/db kernel (8 bytes a thread an iteration), the
/// backward of [8192, 4096] bf16 took 0.175 ms unrolled by 4, 0.151 by 8
/// and 0.145 by 16 on an H100.
constexpr int64_t kBytesInFlightPerThread = 128;
constexpr int64_t kMinFactor = 4, kMaxFactor = 16;
/// Loads of at most this many elements per thread (each) are latency-bound.
constexpr int64_t kMaxLoadElementsPerThread = 4;
/// Bodies of at most this many ops (before unrolling) are unrolled.
constexpr int64_t kMaxBodyOps = 96;

/// The factor to unroll `loop` by, or 0 where it is not worth unrolling.
int64_t unrollFactor(scf::ForOp loop) {
  LaunchAttr launch = launchOf(loop);
  if (!launch)
    return 0;
  int64_t threads = 32 * launch.getNumWarps();
  int64_t ops = 0, bytes = 0;
  bool loads = false, ok = true;
  loop.getBody()->walk([&](Operation *op) {
    ++ops;
    if (isa<scf::ForOp, scf::WhileOp, tt::DotOp>(op) && op != loop)
      ok = false;
    if (auto load = dyn_cast<tt::LoadOp>(op)) {
      auto type = dyn_cast<RankedTensorType>(load.getType());
      if (!type || type.getNumElements() > kMaxLoadElementsPerThread * threads)
        ok = false;
      else
        bytes += std::max<int64_t>(1, type.getNumElements() / threads) *
                 std::max<int64_t>(1, getElementTypeOrSelf(type).getIntOrFloatBitWidth() / 8);
      loads = true;
    }
    // Loops with pallas_gpu ops (rings, barriers) are someone else's.
    if (op->getDialect() && op->getDialect()->getNamespace() == "pallas_gpu")
      ok = false;
  });
  if (!ok || !loads || ops > kMaxBodyOps)
    return 0;
  int64_t factor = kMinFactor;
  while (factor < kMaxFactor && factor * bytes < kBytesInFlightPerThread)
    factor *= 2;
  APInt lb, ub, step;
  bool constantTrips = matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
                       matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) &&
                       matchPattern(loop.getStep(), m_ConstantInt(&step));
  if (!constantTrips || !step.isStrictlyPositive())
    return 0;
  // Constant trip counts of at least two unrolled iterations: no
  // remainder loop to guard at run time, none to unroll for nothing.
  int64_t trips = (ub - lb).sdiv(step).getSExtValue();
  while (factor > kMinFactor && trips < 2 * factor)
    factor /= 2;
  return trips >= 2 * factor ? factor : 0;
}

struct UnrollLoadLoopsPass : pallas::impl::PallasUnrollLoadLoopsBase<UnrollLoadLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, int64_t>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (int64_t factor = unrollFactor(loop))
        loops.push_back({loop, factor});
    });
    for (auto [loop, factor] : loops)
      (void)loopUnrollByFactor(loop, factor);
  }
};

} // namespace
