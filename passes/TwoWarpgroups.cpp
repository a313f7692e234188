//===- TwoWarpgroups.cpp - 4-warp programs too big for one warpgroup ------===//
//
// A program of 4 warps has 128 threads' registers (on sm_90a: one
// consumer warpgroup beside the producer). JAX's mha forward at D <= 64
// asks for 4 warps with 128-row query blocks: its 128 x 128 f32 scores
// alone are 128 values a thread, and with their exponentials and the
// output accumulator the threads spill (0.18x of cuDNN on an H100).
// num_warps only sizes the program, so such a program runs on 8 warps
// (on sm_90a each warpgroup an m64 block of every dot).
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/LoopFootprint.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASTWOWARPGROUPS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Whether `v` is a loop's next carried value, or the dot added into one
/// (`acc + dot`): values a dot accumulates in place.
bool accumulatedInPlace(Value v) {
  auto yielded = [](Value x) {
    return llvm::any_of(x.getUsers(), [](Operation *u) { return isa<scf::YieldOp>(u); });
  };
  if (yielded(v))
    return true;
  if (!v.hasOneUse())
    return false;
  auto add = dyn_cast<arith::AddFOp>(*v.getUsers().begin());
  return v.getDefiningOp<DotOp>() && add && yielded(add.getResult());
}

struct TwoWarpgroupsPass : public pallas::impl::PallasTwoWarpgroupsBase<TwoWarpgroupsPass> {
  using PallasTwoWarpgroupsBase::PallasTwoWarpgroupsBase;

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      if (LaunchAttr launch = getLaunch(kernel);
          launch && !launch.getExpanded() && launch.getNumWarps() == 4 && tooBig(kernel) &&
          rowsSplit(kernel))
        setLaunch(kernel, launch.withNumWarps(8));
  }

  /// Every dot is 2-D with a multiple of 128 rows (two warpgroups, whole
  /// m64 blocks each), and no op is a plgpu op.
  static bool rowsSplit(KernelOp kernel) {
    bool dots = false;
    WalkResult r = kernel.walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "plgpu")
        return WalkResult::interrupt();
      if (auto dot = dyn_cast<DotOp>(op)) {
        auto type = dot.getResult().getType();
        if (type.getRank() != 2 || type.getDimSize(0) % 128)
          return WalkResult::interrupt();
        dots = true;
      }
      return WalkResult::advance();
    });
    return dots && !r.wasInterrupted();
  }

  /// Some loop's carried values and two largest f32 tensors (not counting
  /// dots accumulated in place; loopHeldElements) pass `max-registers` a
  /// thread of one warpgroup.
  bool tooBig(KernelOp kernel) {
    constexpr int64_t threads = 128;
    bool big = false;
    kernel.walk([&](scf::ForOp loop) {
      int64_t held = loopHeldElements(loop, [](Value v) -> int64_t {
        auto t = cast<RankedTensorType>(v.getType());
        if (!t.getElementType().isF32() || accumulatedInPlace(v))
          return 0;
        return t.getNumElements();
      });
      big |= held > maxRegisters * threads;
    });
    return big;
  }
};
} // namespace
