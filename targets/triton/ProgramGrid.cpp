//===- ProgramGrid.cpp - grid axes as Triton program ids ------------------===//
#include "pallas/Triton/ProgramGrid.h"

using namespace mlir;
using namespace mlir::pallas;

ProgramGrid mlir::pallas::programGridOf(LaunchAttr launch) {
  ProgramGrid g;
  ArrayRef<int64_t> grid = launch.getGrid();
  g.numAxes = launch.numLeadingParallelAxes();
  g.folded = g.numAxes > 3;
  for (unsigned a = 1; a < g.numAxes; ++a)
    g.folded |= grid[a] > 65535;
  if (g.folded) {
    int64_t total = 1;
    for (unsigned a = 0; a < g.numAxes; ++a)
      total *= grid[a];
    g.launch.push_back(total);
  } else {
    g.launch.append(grid.begin(), grid.begin() + g.numAxes);
  }
  g.launch.resize(3, 1);
  return g;
}
