//===- ProgramGrid.h - grid axes as tile-IR program ids ---------*- C++ -*-===//
//
// Tile IR (the triton target, and the CUDA targets, which lower it) runs the
// grid's leading parallel axes as program ids and the rest as loops inside
// each program. Up to three parallel axes map onto x, y, z; more, or a y/z
// extent beyond 65535, fold into x.
//
// A launch with a `program_order` (pallas-program-order) runs its programs
// as one linear block index p along x instead, in that order. With order
// [f, s, rest...] and no group, p runs through f fastest, then s, then the
// rest. With `program_group` G, p runs through programs in groups of G
// along f (the last group may be smaller): inside a group, f fastest over
// the group's G values, then s over all of s; then the next group; then the
// rest. For a GEMM's (i, j) grid with order [0, 1] and G = 8, consecutive
// programs share a column block of B, and each group of 8 rows reuses its
// 8 row blocks of A across all columns (Triton's "grouped ordering").
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TILE_PROGRAMGRID_H
#define PALLAS_TILE_PROGRAMGRID_H

#include "pallas/Dialect/Pallas.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas {

struct ProgramGrid {
  /// Grid axes that become program ids (the leading parallel ones).
  unsigned numAxes = 0;
  /// Whether they all fold into program id x.
  bool folded = false;
  /// Whether the launch runs them in a program order (see above): the IR's
  /// program ids then stay one per axis, and the backend derives them from
  /// the linear block index.
  bool ordered = false;
  /// Programs along program ids x, y, z as the IR reads them.
  SmallVector<int64_t, 3> ids;
  /// Blocks launched along x, y, z (ShapedType::kDynamic where symbolic sizes
  /// give the extent at launch).
  SmallVector<int64_t, 3> launch;
};

ProgramGrid programGridOf(LaunchAttr launch);

/// The program id of each leading parallel axis of `launch` (which has a
/// program order) for linear block index `linear` (an i32 in
/// 0 .. programs - 1), as the program order runs through them. Folds to
/// constants for a constant `linear`.
SmallVector<Value> orderedProgramIds(OpBuilder &b, Location loc, Value linear,
                                     LaunchAttr launch);

} // namespace mlir::pallas

#endif
