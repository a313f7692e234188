//===- SplitPrograms.cpp - too-big programs become several ----------------===//
//
// Tracks which block dims travel together through the kernel (a union-find
// over (value, dim) pairs) and splits the dims that are never reduced over
// nor reshaped into pieces handled by the programs of a new grid axis. A
// batched dot's batch dim may be split into pieces of one and dropped
// (squeezed): the dots become 2-D.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/BlockDims.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASSPLITPROGRAMS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

struct SplitProgramsPass
    : public pallas::impl::PallasSplitProgramsBase<SplitProgramsPass> {
  using PallasSplitProgramsBase::PallasSplitProgramsBase;

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      // (Not yet with symbolic sizes, whose grid extents are expressions.)
      if (LaunchAttr launch = getLaunch(kernel);
          launch && !launch.getExpanded() && launch.getSizes().empty() &&
          !(keepSequentialDots && isKLoopAsWritten(kernel, launch)))
        split(kernel, launch);
  }

  void split(KernelOp kernel, LaunchAttr launch) {
    DimClasses dims;
    if (!analyseBlockDims(kernel, dims))
      return;
    Block &entry = kernel.getBody().front();
    // Candidate classes: dots' batch dims (with unbatch-dots: pieces of
    // one, squeezed away), then those holding an output dim, not blocked,
    // too big.
    SmallVector<Slot> chosen, squeezed;
    SmallVector<int64_t> factors;
    for (BlockArgument arg : entry.getArguments()) {
      BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
      if (!unbatchDots || !spec || spec.getRole() != ArgRole::output)
        continue;
      ArrayRef<int64_t> shape = shapeOf(arg.getType());
      for (unsigned d = 0; d < shape.size(); ++d) {
        Slot leader = dims.leader(arg, d);
        if (llvm::is_contained(chosen, leader) || !dims.isBatch(leader) ||
            dims.isBlocked(leader) || ShapedType::isDynamic(shape[d]))
          continue;
        chosen.push_back(leader);
        squeezed.push_back(leader);
        factors.push_back(shape[d]);
      }
    }
    for (BlockArgument arg : entry.getArguments()) {
      BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
      // (An output the kernel never touches carries no work to split: its
      // dims would only multiply the programs, each redoing all of it.)
      if (!spec || spec.getRole() != ArgRole::output || arg.use_empty())
        continue;
      ArrayRef<int64_t> shape = shapeOf(arg.getType());
      if (maxElements > 0 && ShapedType::getNumElements(shape) <= maxElements)
        continue;
      for (unsigned d = 0; d < shape.size(); ++d) {
        Slot leader = dims.leader(arg, d);
        if (llvm::is_contained(chosen, leader) || dims.isBlocked(leader) ||
            shape[d] <= maxTile || shape[d] % maxTile != 0)
          continue;
        chosen.push_back(leader);
        factors.push_back(shape[d] / maxTile);
      }
    }
    if (chosen.empty())
      return;
    int64_t total = 1;
    SmallVector<int64_t> strides;
    for (int64_t f : factors) {
      strides.push_back(total);
      total *= f;
    }

    MLIRContext *ctx = kernel.getContext();
    unsigned p = launch.numLeadingParallelAxes();
    int64_t batch = launch.getBatchAxes();

    // Grid and semantics gain the new (parallel) axis at p (none where the
    // only change is squeezing batch dims of one).
    bool newAxis = total > 1;
    if (newAxis) {
      SmallVector<int64_t> grid(launch.getGrid());
      grid.insert(grid.begin() + p, total);
      SmallVector<DimensionSemantics> semantics(launch.getDimensionSemantics());
      if (launch.hasDimensionSemantics())
        semantics.insert(semantics.begin() + p, DimensionSemantics::parallel);
      setLaunch(kernel, launch.withGrid(grid, semantics));
      kernel.walk([&](Operation *op) {
        if (auto pid = dyn_cast<ProgramIdOp>(op)) {
          if (pid.getAxis() + batch >= p)
            pid.setAxis(pid.getAxis() + 1);
        } else if (auto n = dyn_cast<NumProgramsOp>(op)) {
          if (n.getAxis() + batch >= p)
            n.setAxis(n.getAxis() + 1);
        }
      });
    }
    auto isSqueezed = [&](Value v, unsigned d) {
      return llvm::is_contained(squeezed, dims.leader(v, d));
    };
    // What dim d of v becomes once its squeezed dims are gone.
    auto keptIndex = [&](Value v, int64_t d) {
      int64_t k = 0;
      for (int64_t e = 0; e < d; ++e)
        k += !isSqueezed(v, e);
      return k;
    };
    // Ops that name dims: their attributes follow (before types change).
    if (!squeezed.empty())
      kernel.walk([&](Operation *op) {
        if (auto reduce = dyn_cast<ReduceOp>(op)) {
          SmallVector<int64_t> axes;
          for (int64_t a : reduce.getAxes())
            axes.push_back(keptIndex(reduce.getInput(), a));
          reduce.setAxes(axes);
        } else if (auto br = dyn_cast<BroadcastOp>(op);
                   br && isa<RankedTensorType>(br.getInput().getType())) {
          SmallVector<int64_t> map = br.getInputToResultDims(), kept;
          for (auto [i, d] : llvm::enumerate(map))
            if (!isSqueezed(br.getInput(), i))
              kept.push_back(keptIndex(br.getResult(), d));
          br.setDimsAttr(DenseI64ArrayAttr::get(ctx, kept));
        }
      });

    auto factorOf = [&](Value v, unsigned d) -> std::pair<int64_t, int64_t> {
      Slot leader = dims.leader(v, d);
      for (auto [i, c] : llvm::enumerate(chosen))
        if (c == leader)
          return {factors[i], strides[i]};
      return {1, 1};
    };
    auto shrink = [&](Value v) {
      Type t = v.getType();
      SmallVector<int64_t> shape;
      bool changed = false;
      for (auto [d, n] : llvm::enumerate(shapeOf(t))) {
        if (isSqueezed(v, d)) {
          changed = true;
          continue;
        }
        int64_t f = factorOf(v, d).first;
        changed |= f > 1;
        shape.push_back(f > 1 ? n / f : n);
      }
      if (changed)
        setShape(v, shape);
      return changed;
    };

    // Arguments: index maps pick the piece, blocks shrink.
    AffineExpr piece = getAffineDimExpr(p, ctx);
    for (BlockArgument arg : entry.getArguments()) {
      unsigned i = arg.getArgNumber();
      BlockSpecAttr spec = getBlockSpec(kernel, i);
      if (spec && spec.getIndexMap()) {
        AffineMap m = spec.getIndexMap();
        SmallVector<AffineExpr> shifted;
        for (unsigned d = 0; d < m.getNumDims(); ++d)
          shifted.push_back(getAffineDimExpr(d < p ? d : d + 1, ctx));
        SmallVector<AffineExpr> results;
        for (AffineExpr e : m.getResults())
          results.push_back(e.replaceDims(shifted));
        SmallVector<int64_t> blockDims(spec.getBlock());
        SmallVector<int64_t> squeezedDims(spec.getSqueezed());
        unsigned refDim = 0;
        for (unsigned k = 0; k < blockDims.size(); ++k) {
          if (spec.isSqueezed(k))
            continue;
          // (A dot's batch dim, cut into pieces of one, leaves the ref.)
          if (isSqueezed(arg, refDim))
            squeezedDims.push_back(k);
          auto [f, stride] = factorOf(arg, refDim++);
          if (f == 1)
            continue;
          blockDims[k] /= f;
          results[k] = results[k] * f + (piece.floorDiv(stride) % f);
        }
        llvm::sort(squeezedDims);
        AffineMap map =
            newAxis ? AffineMap::get(m.getNumDims() + 1, 0, results, ctx) : spec.getIndexMap();
        setBlockSpec(kernel, i,
                     BlockSpecAttr::get(ctx, spec.getRole(), spec.getName(), spec.getShape(),
                                        blockDims, squeezedDims, map, FlatSymbolRefAttr(),
                                        spec.getSizeNames()));
      }
      shrink(arg);
    }
    kernel.setFunctionTypeAttr(TypeAttr::get(
        FunctionType::get(ctx, entry.getArgumentTypes(), {})));

    // Tensors: results and block arguments shrink; splat constants follow.
    retypeTensors(kernel, shrink);
  }
};
} // namespace
