//===- TritonPipeline.cpp - kernel to Triton IR ---------------------------===//

#include "pallas/Passes/Passes.h"
#include "pallas/Triton/TritonPasses.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pallas;

void mlir::pallas::addProgramShaping(OpPassManager &pm, int64_t maxElements) {
  pm.addPass(createInlinerPass());
  // One program holds one CTA's worth of data: cut big output tiles over
  // more programs and stream long dot contractions.
  pm.addPass(createPallasSplitPrograms({/*maxTile=*/128, maxElements}));
  pm.addPass(createPallasStreamDotK({/*kChunk=*/64}));
  // Programs sharing input blocks run side by side (L2 reuse).
  pm.addPass(createPallasProgramOrder());
  pm.addPass(createPallasExpandGrid());
}

void mlir::pallas::buildTritonPipeline(OpPassManager &pm) {
  addProgramShaping(pm, /*maxElements=*/0);
  pm.addPass(createConvertPallasToTriton());
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
