//===- MergePrograms.cpp - pairs of small GEMM programs become one --------===//
//
// The inverse of pallas-split-programs for one case: a GEMM of 128 x 128
// tiles runs as 128 x 256 tiles, two of its programs along the grid axis
// that picks the N blocks per program. The kernel is retyped in place:
// blocks, scratch and tensors of the N dim's class double, the axis's
// extent halves, index maps stay (block b of twice the width covers what
// blocks 2b and 2b + 1 did).
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/BlockDims.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASMERGEPROGRAMS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

struct MergeProgramsPass : public pallas::impl::PallasMergeProgramsBase<MergeProgramsPass> {
  using PallasMergeProgramsBase::PallasMergeProgramsBase;

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      if (LaunchAttr launch = getLaunch(kernel);
          launch && !launch.getExpanded() && launch.getSizes().empty() &&
          launch.getNumWarps() == warps && launch.getProgramOrder().empty())
        merge(kernel, launch);
  }

  /// The kernel's one dot, when it is a GEMM tile worth merging: 2-D,
  /// 128 x 128 f32 from operands of at most 16 bits, B not transposed.
  static DotOp gemmTile(KernelOp kernel) {
    DotOp dot;
    int dots = 0;
    kernel.walk([&](DotOp d) {
      dot = d;
      ++dots;
    });
    if (dots != 1 || dot.getTransposeRhs())
      return {};
    auto result = dot.getResult().getType();
    auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
    if (result.getRank() != 2 || result.getDimSize(0) != 128 || result.getDimSize(1) != 128 ||
        !result.getElementType().isF32() || lhs.getElementTypeBitWidth() > 16)
      return {};
    return dot;
  }

  void merge(KernelOp kernel, LaunchAttr launch) {
    DotOp dot = gemmTile(kernel);
    if (!dot)
      return;
    DimClasses dims;
    if (!analyseBlockDims(kernel, dims, /*partialAccesses=*/true))
      return;
    Slot n = dims.leader(dot.getResult(), 1);
    if (dims.isBlocked(n))
      return;
    Block &entry = kernel.getBody().front();
    MLIRContext *ctx = kernel.getContext();
    auto inClass = [&](Value v, unsigned d) { return dims.leader(v, d) == n; };
    // Per dim of `arg`'s block: whether it is in the class (squeezed dims,
    // which the ref lacks, never are).
    auto classBlockDims = [&](BlockArgument arg, BlockSpecAttr spec) {
      SmallVector<bool> in;
      unsigned refDim = 0;
      for (unsigned k = 0; k < spec.getBlock().size(); ++k)
        in.push_back(!spec.isSqueezed(k) && inClass(arg, refDim++));
      return in;
    };

    // The grid axis: the one index expression of every block dim in the
    // class; no other index expression may use it.
    std::optional<unsigned> axis;
    bool ok = true, output = false;
    for (BlockArgument arg : entry.getArguments()) {
      BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
      if (!spec)
        return;
      if (spec.getRole() == ArgRole::scratch)
        continue;
      AffineMap map = spec.getIndexMap();
      if (!map)
        return; // (index functions: what they read is unknown)
      SmallVector<bool> in = classBlockDims(arg, spec);
      // (Two dims of one block in the class, both picked by the axis:
      // doubling both would cover blocks no program wrote.)
      if (llvm::count(in, true) > 1)
        return;
      for (unsigned k = 0; k < in.size(); ++k) {
        if (!in[k])
          continue;
        auto d = dyn_cast<AffineDimExpr>(map.getResult(k));
        if (!d || (axis && *axis != d.getPosition()))
          return;
        axis = d.getPosition();
        output |= spec.getRole() == ArgRole::output;
      }
    }
    if (!axis || !output)
      return;
    unsigned a = *axis;
    ArrayRef<int64_t> grid = launch.getGrid();
    if (a < launch.getBatchAxes() || a >= launch.numLeadingParallelAxes() || grid[a] % 2)
      return;
    for (BlockArgument arg : entry.getArguments()) {
      BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
      if (spec.getRole() == ArgRole::scratch)
        continue;
      SmallVector<bool> in = classBlockDims(arg, spec);
      for (unsigned k = 0; k < in.size(); ++k)
        if (!in[k] && spec.getIndexMap().getResult(k).isFunctionOfDim(a))
          ok = false;
    }
    // The kernel may not tell its programs apart along the axis.
    unsigned kernelAxis = a - launch.getBatchAxes();
    kernel.walk([&](Operation *op) {
      if (auto pid = dyn_cast<ProgramIdOp>(op); pid && pid.getAxis() == kernelAxis)
        ok = false;
      if (auto np = dyn_cast<NumProgramsOp>(op); np && np.getAxis() == kernelAxis)
        ok = false;
    });
    if (!ok)
      return;
    // pallas-split-programs, which runs next, must leave the merged
    // program whole: a K loop as written, or an N dim it cannot split
    // (it does not follow slicing loads).
    if (!isKLoopAsWritten(kernel, launch)) {
      DimClasses plain;
      if (!analyseBlockDims(kernel, plain) || !plain.isBlocked(plain.leader(dot.getResult(), 1)))
        return;
    }

    auto grow = [&](Value v) {
      Type t = v.getType();
      SmallVector<int64_t> shape(shapeOf(t));
      bool changed = false;
      for (unsigned d = 0; d < shape.size(); ++d)
        if (inClass(v, d)) {
          shape[d] *= 2;
          changed = true;
        }
      if (changed)
        setShape(v, shape);
      return changed;
    };
    // Every tensor the merged program holds must still fit a CTA's
    // registers as a tuned GEMM's do: 128 elements per thread.
    int64_t limit = 128 * 32 * warps;
    WalkResult fits = kernel.walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        auto t = dyn_cast<RankedTensorType>(v.getType());
        if (!t)
          continue;
        int64_t elements = t.getNumElements();
        for (unsigned d = 0; d < t.getRank(); ++d)
          if (dims.leader(v, d) == n)
            elements *= 2;
        if (elements > limit)
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (fits.wasInterrupted())
      return;

    // Blocks double along the class; index maps stay.
    for (BlockArgument arg : entry.getArguments()) {
      unsigned i = arg.getArgNumber();
      BlockSpecAttr spec = getBlockSpec(kernel, i);
      SmallVector<int64_t> blockDims(spec.getBlock());
      for (auto [k, in] : llvm::enumerate(classBlockDims(arg, spec)))
        if (in)
          blockDims[k] *= 2;
      // (Scratch has no index map: its type is all there is.)
      if (grow(arg) && spec.getRole() != ArgRole::scratch)
        setBlockSpec(kernel, i,
                     BlockSpecAttr::get(ctx, spec.getRole(), spec.getName(), spec.getShape(),
                                        blockDims, spec.getSqueezed(), spec.getIndexMap(),
                                        spec.getIndexFn(), spec.getSizeNames()));
    }
    kernel.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(ctx, entry.getArgumentTypes(), {})));
    // Tensors: results and block arguments grow; splat constants follow.
    retypeTensors(kernel, grow);
    SmallVector<int64_t> newGrid(grid);
    newGrid[a] /= 2;
    setLaunch(kernel, launch.withGrid(newGrid, launch.getDimensionSemantics()));
  }
};
} // namespace
