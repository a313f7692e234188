//===- ProgramOrder.cpp - programs sharing blocks launched together -------===//
//
// Scores each leading parallel grid axis by the bytes of the input blocks
// whose index maps ignore it (what consecutive programs along that axis
// read again) and launches the best-scoring axis fastest, unless programs
// along it run loops of different lengths (causal attention): those go in
// about a wave at a time, across a few programs of another axis.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
SmallVector<int64_t> sharedBytesPerAxis(KernelOp kernel, unsigned axes, unsigned batchAxes) {
  SmallVector<int64_t> score(axes, 0);
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    BlockSpecAttr spec = getBlockSpec(kernel, i);
    auto type = dyn_cast<RefType>(kernel.getArgument(i).getType());
    if (!spec || spec.getRole() != ArgRole::input || !type ||
        !type.getElementType().isIntOrFloat())
      continue;
    if (AffineMap map = spec.getIndexMap()) {
      for (unsigned a = 0; a < axes && a < map.getNumDims(); ++a)
        if (llvm::none_of(map.getResults(), [&](AffineExpr e) { return e.isFunctionOfDim(a); }))
          score[a] += blockBytes(spec, type);
      continue;
    }
    // An index function (a scalar-prefetch map): what it reads from its
    // tables is unknown, but a grid index it never uses changes nothing.
    auto fn = spec.getIndexFn()
                  ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(kernel, spec.getIndexFn())
                  : func::FuncOp();
    if (!fn || fn.isExternal())
      continue;
    // (It takes the grid indices after vmap's batch axes.)
    for (unsigned a = batchAxes; a < axes && a - batchAxes < fn.getNumArguments(); ++a)
      if (fn.getArgument(a - batchAxes).use_empty())
        score[a] += blockBytes(spec, type);
  }
  return score;
}

/// Whether programs along grid axis `axis` run loops of different lengths:
/// some loop bound is computed from the axis's program id (the kernel's
/// ids skip the launch's `batchAxes` vmap axes).
bool lengthVariesAlong(KernelOp kernel, unsigned axis, unsigned batchAxes) {
  if (axis < batchAxes)
    return false;
  bool varies = false;
  kernel.walk([&](scf::ForOp loop) {
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()}) {
      SetVector<Operation *> slice;
      BackwardSliceOptions options;
      options.omitBlockArguments = true;
      if (Operation *def = bound.getDefiningOp()) {
        (void)getBackwardSlice(def, &slice, options);
        slice.insert(def);
      }
      for (Operation *op : slice)
        if (auto pid = dyn_cast<ProgramIdOp>(op); pid && pid.getAxis() + batchAxes == axis)
          varies = true;
    }
  });
  return varies;
}

/// Programs launched together: about one per SM of the GPUs we target.
constexpr int64_t kWave = 128;

struct ProgramOrderPass : pallas::impl::PallasProgramOrderBase<ProgramOrderPass> {
  using PallasProgramOrderBase::PallasProgramOrderBase;

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      LaunchAttr launch = getLaunch(kernel);
      if (!launch || launch.getExpanded() || !launch.getProgramOrder().empty() ||
          launch.hasSymbolicGrid())
        return;
      unsigned axes = launch.numLeadingParallelAxes();
      if (axes < 2 || axes > 3)
        return;
      int64_t programs = 1;
      for (unsigned a = 0; a < axes; ++a)
        programs *= launch.getGrid()[a];
      if (programs > (int64_t{1} << 31) - 1)
        return;
      SmallVector<int64_t> score = sharedBytesPerAxis(kernel, axes, launch.getBatchAxes());
      // Best first; ties keep the grid's order.
      SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, axes));
      llvm::sort(order, [&](int64_t a, int64_t b) {
        return score[a] != score[b] ? score[a] > score[b] : a < b;
      });
      if (score[order[0]] == 0)
        return;
      // Programs of different lengths along the best axis: longest first
      // matters too (pallas-heavy-programs-first counts such axes down). A
      // few programs of the next axis side by side, each running through
      // the whole best axis: a group of about a wave keeps its blocks in L2
      // and starts its longest programs together.
      if (ArrayRef<int64_t> grid = launch.getGrid();
          lengthVariesAlong(kernel, order[0], launch.getBatchAxes())) {
        int64_t varying = order[0], other = order[1];
        int64_t g = std::clamp<int64_t>(kWave / grid[varying], 2, 16);
        order.erase(order.begin());
        order.erase(llvm::find(order, other));
        llvm::sort(order);
        order.insert(order.begin(), {other, varying});
        if (grid[other] <= g)
          g = 0;
        if (!g && llvm::equal(order, llvm::seq<int64_t>(0, axes)))
          return;
        setLaunch(kernel, launch.withProgramOrder(order, g));
        return;
      }
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
