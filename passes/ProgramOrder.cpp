//===- ProgramOrder.cpp - programs sharing blocks launched together -------===//
//
// Scores each leading parallel grid axis by the bytes of the input blocks
// whose index maps ignore it (what consecutive programs along that axis
// read again) and launches the best-scoring axis fastest.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASPROGRAMORDER
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Bytes of one block of argument `arg` (a ref of `type`).
int64_t blockBytes(BlockSpecAttr spec, RefType type) {
  int64_t elements = 1;
  for (int64_t d : spec.getBlock())
    elements *= d;
  return elements * std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
}

/// Per leading parallel axis: the bytes of input blocks that stay the same
/// along it.
SmallVector<int64_t> sharedBytesPerAxis(KernelOp kernel, unsigned axes) {
  SmallVector<int64_t> score(axes, 0);
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    BlockSpecAttr spec = getBlockSpec(kernel, i);
    auto type = dyn_cast<RefType>(kernel.getArgument(i).getType());
    // Index functions may read anything: they share nothing we can see.
    if (!spec || spec.getRole() != ArgRole::input || !spec.getIndexMap() || !type ||
        !type.getElementType().isIntOrFloat())
      continue;
    AffineMap map = spec.getIndexMap();
    for (unsigned a = 0; a < axes && a < map.getNumDims(); ++a)
      if (llvm::none_of(map.getResults(), [&](AffineExpr e) { return e.isFunctionOfDim(a); }))
        score[a] += blockBytes(spec, type);
  }
  return score;
}

struct ProgramOrderPass : pallas::impl::PallasProgramOrderBase<ProgramOrderPass> {
  using PallasProgramOrderBase::PallasProgramOrderBase;

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      LaunchAttr launch = getLaunch(kernel);
      if (!launch || launch.getExpanded() || !launch.getProgramOrder().empty())
        return;
      unsigned axes = launch.numLeadingParallelAxes();
      if (axes < 2 || axes > 3)
        return;
      int64_t programs = 1;
      for (unsigned a = 0; a < axes; ++a)
        programs *= launch.getGrid()[a];
      if (programs > (int64_t{1} << 31) - 1)
        return;
      SmallVector<int64_t> score = sharedBytesPerAxis(kernel, axes);
      // Best first; ties keep the grid's order.
      SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, axes));
      llvm::sort(order, [&](int64_t a, int64_t b) {
        return score[a] != score[b] ? score[a] > score[b] : a < b;
      });
      if (score[order[0]] == 0)
        return;
      // A second axis sharing blocks too: groups along the first keep both
      // sets of blocks in L2 (a group's worth of the first's, all of the
      // second's run through once per group).
      int64_t g = 0;
      if (group >= 2 && score[order[1]] > 0 && launch.getGrid()[order[0]] > group)
        g = group;
      else
        llvm::sort(MutableArrayRef<int64_t>(order).drop_front());
      if (!g && llvm::equal(order, llvm::seq<int64_t>(0, axes)))
        return;
      setLaunch(kernel, launch.withProgramOrder(order, g));
    });
  }
};

} // namespace
