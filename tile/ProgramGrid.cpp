//===- ProgramGrid.cpp - grid axes as Triton program ids ------------------===//
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::pallas;

ProgramGrid mlir::pallas::programGridOf(LaunchAttr launch) {
  ProgramGrid g;
  ArrayRef<int64_t> grid = launch.getGrid();
  g.numAxes = launch.numLeadingParallelAxes();
  g.ordered = !launch.getProgramOrder().empty();
  g.folded = !g.ordered && g.numAxes > 3;
  for (unsigned a = 1; a < g.numAxes && !g.ordered; ++a)
    g.folded |= !ShapedType::isDynamic(grid[a]) && grid[a] > 65535;
  // With symbolic extents (ShapedType::kDynamic) the count is known at
  // launch only.
  int64_t total = 1;
  for (unsigned a = 0; a < g.numAxes; ++a)
    total = ShapedType::isDynamic(grid[a]) || ShapedType::isDynamic(total)
                ? ShapedType::kDynamic
                : total * grid[a];
  if (g.folded || g.ordered)
    g.launch.push_back(total);
  else
    g.launch.append(grid.begin(), grid.begin() + g.numAxes);
  if (g.folded)
    g.ids.push_back(total);
  else
    g.ids.append(grid.begin(), grid.begin() + g.numAxes);
  g.launch.resize(3, 1);
  g.ids.resize(3, 1);
  return g;
}

SmallVector<Value> mlir::pallas::orderedProgramIds(OpBuilder &b, Location loc, Value linear,
                                                   LaunchAttr launch) {
  ArrayRef<int64_t> grid = launch.getGrid();
  ArrayRef<int64_t> order = launch.getProgramOrder();
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  // Linear indices are never negative: unsigned division and remainder.
  auto div = [&](Value x, Value y) { return b.createOrFold<arith::DivUIOp>(loc, x, y); };
  auto rem = [&](Value x, Value y) { return b.createOrFold<arith::RemUIOp>(loc, x, y); };
  SmallVector<Value> ids(order.size());
  Value rest = linear;
  size_t next = 0;
  int64_t group = launch.getProgramGroup();
  if (group) {
    int64_t f = order[0], s = order[1];
    int64_t perGroup = group * grid[s];
    // With no axis after the two, the linear index is below f * s already.
    Value both = order.size() > 2 ? rem(rest, i32(grid[f] * grid[s])) : rest;
    rest = div(rest, i32(grid[f] * grid[s]));
    Value within = rem(both, i32(perGroup));
    Value first = b.createOrFold<arith::MulIOp>(loc, div(both, i32(perGroup)), i32(group));
    // The last group holds what is left of f.
    Value size = grid[f] % group == 0
                     ? i32(group)
                     : b.createOrFold<arith::MinUIOp>(
                           loc, b.createOrFold<arith::SubIOp>(loc, i32(grid[f]), first),
                           i32(group));
    ids[f] = b.createOrFold<arith::AddIOp>(loc, first, rem(within, size));
    ids[s] = div(within, size);
    next = 2;
  }
  for (; next < order.size(); ++next) {
    int64_t a = order[next];
    // The slowest axis takes what is left.
    ids[a] = next + 1 == order.size() ? rest : rem(rest, i32(grid[a]));
    rest = div(rest, i32(grid[a]));
  }
  return ids;
}
