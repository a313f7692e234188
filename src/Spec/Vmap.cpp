//===- Vmap.cpp - jax.vmap of a pallas_call as a launch spec --------------===//
#include "pallas/Spec/LaunchSpec.h"

#include "mlir/IR/AffineExpr.h"

using namespace mlir;
using namespace mlir::pallas;

/// `map` with a new leading dim `b` and, when `axis` is set, `b` inserted as
/// result `axis`.
static AffineMap batchIndexMap(AffineMap map, unsigned arrayRank,
                               std::optional<int64_t> axis, MLIRContext *ctx,
                               unsigned gridRank) {
  map = map.shiftDims(1);
  SmallVector<AffineExpr> results(map.getResults());
  if (axis)
    results.insert(results.begin() + *axis, getAffineDimExpr(0, ctx));
  return AffineMap::get(gridRank + 1, 0, results, ctx);
}

LaunchSpec mlir::pallas::applyVmap(const LaunchSpec &spec) {
  if (!spec.vmap)
    return spec;
  LaunchSpec out = spec;
  const SpecVmap &vmap = *spec.vmap;
  out.vmap.reset();
  unsigned gridRank = spec.grid.size();
  out.grid.insert(out.grid.begin(), vmap.size);
  if (!out.dimensionSemantics.empty())
    out.dimensionSemantics.insert(out.dimensionSemantics.begin(),
                                  DimensionSemantics::parallel);
  auto batch = [&](SpecOperand &op, std::optional<int64_t> axis) {
    unsigned rank = op.shape.size();
    if (op.indexFn.empty())
      op.indexMap = batchIndexMap(op.indexMap, rank, axis, spec.context, gridRank);
    if (!axis)
      return;
    op.shape.insert(op.shape.begin() + *axis, vmap.size);
    op.blockShape.insert(op.blockShape.begin() + *axis, std::nullopt);
  };
  for (auto [op, axis] : llvm::zip(out.inputs, vmap.inAxes))
    batch(op, axis);
  for (auto [op, axis] : llvm::zip(out.outputs, vmap.outAxes))
    batch(op, axis);
  return out;
}
