//===- CudaPipeline.cpp - kernel to per-thread GPU code -------------------===//

#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Tile/TilePasses.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pallas;

/// A plgpu kernel as it schedules itself: its buffers, copies and waits
/// are the schedule, so nothing reshapes its programs, stages its loads or
/// moves its ops about (no loop-invariant code motion either).
static void buildUserSchedulePipeline(OpPassManager &pm, const CudaPipelineOptions &options) {
  pm.addPass(createInlinerPass());
  pm.addPass(createPallasExpandGrid());
  pm.addPass(createConvertPlgpuToTile());
  pm.addPass(createCanonicalizerPass());
  // (Arithmetic only: softmax exponentials as exp2 of one FMA.)
  pm.addPass(createPallasFoldExpScale());
  pm.addPass(createCSEPass());
  pm.addPass(createPallasProgramLimits());
  // One Pallas thread is one warpgroup: its accumulator may span several
  // m64 blocks (128 x N in JAX's matmuls).
  pm.addPass(createPallasAssignLayouts({/*wgmma=*/true, /*wgmmaBlocks=*/4}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertTileToNVVM({options.tmaStoreArea}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::pallas::buildCudaPipeline(OpPassManager &pm,
                                     const CudaPipelineOptions &options) {
  if (options.wgmma && options.userSchedule)
    return buildUserSchedulePipeline(pm, options);
  // CUDA CTAs keep blocks of up to 16K elements whole (128 per thread),
  // and the blocks of a K loop written as a sequential grid axis (staged as
  // a tiled GEMM's in-kernel loop is); a batched dot runs a slice per
  // program, as a 2-D dot on the tensor cores.
  addProgramShaping(pm, /*maxElements=*/16384, /*keepSequentialDots=*/true,
                    /*unbatchDots=*/true,
                    /*mergeGemmTiles=*/options.wgmma && options.tma && options.producer,
                    /*twoWarpgroups=*/true);
  pm.addPass(createConvertPallasToTile({/*tritonDotLimits=*/false,
                                        /*logicalProgramIds=*/true}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createPallasPeelLoopEnds());
  pm.addPass(createPallasProgramLimits());
  pm.addPass(createPallasFoldExpScale());
  pm.addPass(createPallasFoldDotAdd());
  pm.addPass(createPallasSinkLoopReductions());
  pm.addPass(createPallasBroadcastLoads());
  pm.addPass(createPallasFoldTrueMasks());
  pm.addPass(createPallasMaskedMerges());
  pm.addPass(createPallasHeavyProgramsFirst());
  pm.addPass(createLoopInvariantCodeMotionPass());
  // (Before pallas-uniform-masks: a causal mask is still one select.)
  if (options.wgmma)
    pm.addPass(createPallasTransposeScores());
  pm.addPass(createPallasUniformMasks());
  if (options.wgmma)
    pm.addPass(createPallasDeferLastDot());
  pm.addPass(createPallasAssignLayouts({options.wgmma}));
  pm.addPass(createPallasAsyncCopies({options.sharedBytes, options.wgmma && options.tma}));
  if (options.wgmma && options.warpgroupTurns)
    pm.addPass(createPallasWarpgroupTurns({options.sharedBytes}));
  if (options.wgmma)
    pm.addPass(createPallasAsyncDots());
  pm.addPass(createPallasUnrollLoadLoops());
  pm.addPass(createPallasStageLoads(
      {options.sharedBytes, options.wgmma && options.tma, options.wgmma && options.tma && options.producer}));
  if (options.wgmma) {
    pm.addPass(createPallasIssueDotsTogether());
    pm.addPass(createPallasWorkUnderDots());
  }
  if (options.wgmma && options.tma)
    pm.addPass(createPallasTmaStores());
  if (options.wgmma && options.tma && options.producer && options.cluster > 1)
    pm.addPass(createPallasClusterMulticast({options.cluster}));
  if (options.wgmma && options.tma && options.producer && options.persistentCtas > 0)
    pm.addPass(createPallasPersistentPrograms({options.persistentCtas}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createPallasHoistEpilogueLoads());
  if (options.wgmma && options.tma)
    pm.addPass(createPallasFragmentOrderKeys());
  pm.addPass(createConvertTileToNVVM({options.tmaStoreArea}));
  // (No integer range optimization here: on the unrolled per-thread code it
  // took 10-25 % of the compile for the same SASS; LLVM does the same.)
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::pallas::registerCudaPipeline() {
  PassPipelineRegistration<CudaPipelineOptions>(
      "pallas-cuda-pipeline",
      "lower a kernel carrying its launch to a per-thread gpu.module (NVVM)",
      buildCudaPipeline);
}
