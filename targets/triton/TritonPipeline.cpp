//===- TritonPipeline.cpp - kernel to Triton IR ---------------------------===//

#include "pallas/Tile/TilePasses.h"
#include "pallas/Triton/TritonPasses.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pallas;

void mlir::pallas::buildTritonPipeline(OpPassManager &pm) {
  addProgramShaping(pm, /*maxElements=*/0);
  pm.addPass(createConvertPallasToTile());
  pm.addPass(createPallasTritonLegalize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::pallas::registerTritonPipeline() {
  PassPipelineRegistration<>(
      "pallas-triton-pipeline",
      "lower a kernel carrying its launch to Triton IR (tt dialect)",
      [](OpPassManager &pm) { buildTritonPipeline(pm); });
}
