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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
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
/// and 0.145 by 16 on an H100 (1.14x torch's), but unrolled by 16 ptxas
/// now spills 4 bytes of it: by 8 at most.
constexpr int64_t kBytesInFlightPerThread = 128;
constexpr int64_t kMinFactor = 4, kMaxFactor = 8;
/// Loads of at most this many elements per thread (each) are latency-bound.
constexpr int64_t kMaxLoadElementsPerThread = 4;
/// Bodies of at most this many ops (before unrolling) are unrolled.
constexpr int64_t kMaxBodyOps = 96;

/// The constant upper bound of `loop` where its bound is one, or is
/// `select(c, K, lb)` for constants K and lb, the lower bound (a program
/// with nothing to store skips the loop: pallas-skip-masked-out-loops):
/// K, its trips either all or none.
std::optional<APInt> constantUpperBound(scf::ForOp loop) {
  APInt ub, lb, skipped;
  if (matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)))
    return ub;
  auto select = loop.getUpperBound().getDefiningOp<arith::SelectOp>();
  if (select && matchPattern(select.getTrueValue(), m_ConstantInt(&ub)) &&
      matchPattern(select.getFalseValue(), m_ConstantInt(&skipped)) &&
      matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) && skipped == lb)
    return ub;
  return std::nullopt;
}

/// The factor to unroll `loop` (of constant upper bound `ub`, where it
/// has one: constantUpperBound) by, or 0 where it is not worth unrolling.
int64_t unrollFactor(scf::ForOp loop, const std::optional<APInt> &ub) {
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
  APInt lb, step;
  bool constantTrips = matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) && ub &&
                       matchPattern(loop.getStep(), m_ConstantInt(&step));
  if (!constantTrips || !step.isStrictlyPositive())
    return 0;
  // Constant trip counts of at least two unrolled iterations: no
  // remainder loop to guard at run time, none to unroll for nothing.
  int64_t trips = (*ub - lb).sdiv(step).getSExtValue();
  while (factor > kMinFactor && trips < 2 * factor)
    factor /= 2;
  // (A loop its program may skip is unrolled with its constant bound put
  // back after: whole unrolled trips only, no remainder loop.)
  bool skippable = !matchPattern(loop.getUpperBound(), m_Constant());
  if (skippable && trips % factor)
    return 0;
  return trips >= 2 * factor ? factor : 0;
}

struct UnrollLoadLoopsPass : pallas::impl::PallasUnrollLoadLoopsBase<UnrollLoadLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::tuple<scf::ForOp, int64_t, APInt>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<APInt> ub = constantUpperBound(loop);
      if (int64_t factor = unrollFactor(loop, ub))
        loops.push_back({loop, factor, *ub});
    });
    for (auto [loop, factor, ub] : loops) {
      // A loop its program may skip is unrolled over its constant bound
      // (whole unrolled trips, no remainder), then given the choice back:
      // all trips or none. (Left rolled, JAX's layer_norm backward's dw/db
      // loop kept one iteration's loads in flight: 0.82x of torch's
      // backward instead of 1.14x.)
      Value bound = loop.getUpperBound();
      if (matchPattern(bound, m_Constant())) {
        (void)loopUnrollByFactor(loop, factor);
        continue;
      }
      OpBuilder b(loop);
      Value constant = arith::ConstantOp::create(
          b, loop.getLoc(), b.getIntegerAttr(bound.getType(), ub));
      loop.setUpperBound(constant);
      (void)loopUnrollByFactor(loop, factor);
      loop.setUpperBound(bound);
      if (constant.use_empty())
        constant.getDefiningOp()->erase();
    }
  }
};

} // namespace
