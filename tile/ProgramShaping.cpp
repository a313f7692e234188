//===- ProgramShaping.cpp - kernel programs sized for one CTA -------------===//

#include "pallas/Passes/Passes.h"
#include "pallas/Tile/TilePasses.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pallas;

void mlir::pallas::addProgramShaping(OpPassManager &pm, int64_t maxElements,
                                     bool keepSequentialDots, bool unbatchDots,
                                     bool mergeGemmTiles, bool twoWarpgroups) {
  pm.addPass(createInlinerPass());
  // 4-warp programs whose loops 128 threads' registers cannot hold run on
  // 8 warps (before plgpu kernels, whose warpgroups are their own, become
  // pallas kernels).
  if (twoWarpgroups)
    pm.addPass(createPallasTwoWarpgroups());
  // plgpu kernels of one warpgroup, in program order, as pallas ops.
  pm.addPass(createConvertPlgpuToPallas());
  // 128 x 128 GEMM tiles run as 128 x 256 where a producer warpgroup takes
  // a CTA's share of the SM.
  if (mergeGemmTiles) {
    pm.addPass(createPallasMergePrograms());
    // Programs of 32 rows on one warpgroup run in pairs, and loops over
    // 32-row blocks there step 64 rows: a wgmma m64 block, or n64 where
    // the rows are the columns.
    pm.addPass(createPallasMergeRowPrograms());
    pm.addPass(createPallasMergeIterations({/*warps=*/4, /*maxRegisters=*/192, /*columns=*/true}));
    // Loops over 64-row blocks on two warpgroups step 128 rows: a wgmma
    // m64 block each.
    pm.addPass(createPallasMergeIterations());
  }
  // One program holds one CTA's worth of data: cut big output tiles over
  // more programs and stream long dot contractions.
  pm.addPass(
      createPallasSplitPrograms({/*maxTile=*/128, maxElements, keepSequentialDots, unbatchDots}));
  pm.addPass(createPallasStreamDotK({/*kChunk=*/64}));
  // Programs that store nothing (masks empty) skip their loops.
  pm.addPass(createPallasSkipMaskedOutLoops());
  // Programs sharing input blocks run side by side (L2 reuse).
  pm.addPass(createPallasProgramOrder());
  pm.addPass(createPallasExpandGrid());
}
