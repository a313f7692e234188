//===- TilePasses.h - passes that produce tile IR ---------------*- C++ -*-===//
#ifndef PALLAS_TILE_TILEPASSES_H
#define PALLAS_TILE_TILEPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pallas/Tile/Tile.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Tile/TilePasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Tile/TilePasses.h.inc"

/// What both GPU targets run before convert-pallas-to-tile: programs split
/// to one CTA's worth, dots streamed over K, programs ordered, the grid
/// expanded. `maxElements`: output blocks of at most this many elements
/// stay whole (0: split by tile size alone); `keepSequentialDots`: so do
/// the programs of a sequential grid axis that accumulates dots;
/// `mergeGemmTiles`: pairs of 128 x 128 GEMM programs run as one 128 x 256
/// (pallas-merge-programs).
void addProgramShaping(OpPassManager &pm, int64_t maxElements,
                       bool keepSequentialDots = false, bool unbatchDots = false,
                       bool mergeGemmTiles = false, bool twoWarpgroups = false);

} // namespace mlir::pallas

#endif
