//===- MosaicPipeline.cpp - kernel to a Mosaic module ---------------------===//

#include "pallas/Mosaic/MosaicPasses.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pallas;

void mlir::pallas::buildMosaicPipeline(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  pm.addPass(createConvertPallasToMosaic());
}

void mlir::pallas::registerMosaicPipeline() {
  PassPipelineRegistration<>(
      "pallas-mosaic-pipeline",
      "lower a kernel carrying its launch to a Mosaic (tpu) module",
      [](OpPassManager &pm) { buildMosaicPipeline(pm); });
}
