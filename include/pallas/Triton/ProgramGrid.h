//===- ProgramGrid.h - grid axes as Triton program ids ----------*- C++ -*-===//
//
// The triton target (and the CUDA targets, which lower through it) runs the
// grid's leading parallel axes as program ids and the rest as loops inside
// each program. Up to three parallel axes map onto x, y, z; more, or a y/z
// extent beyond 65535, fold into x.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TRITON_PROGRAMGRID_H
#define PALLAS_TRITON_PROGRAMGRID_H

#include "pallas/Dialect/Pallas.h"

namespace mlir::pallas {

struct ProgramGrid {
  /// Grid axes that become program ids (the leading parallel ones).
  unsigned numAxes = 0;
  /// Whether they all fold into program id x.
  bool folded = false;
  /// Programs along x, y, z.
  SmallVector<int64_t, 3> launch;
};

ProgramGrid programGridOf(LaunchAttr launch);

} // namespace mlir::pallas

#endif
