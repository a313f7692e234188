//===- MosaicPasses.h - the Mosaic TPU backend's passes ---------*- C++ -*-===//
#ifndef PALLAS_MOSAIC_MOSAICPASSES_H
#define PALLAS_MOSAIC_MOSAICPASSES_H

#include "pallas/Mosaic/Tpu.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Mosaic/MosaicPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Mosaic/MosaicPasses.h.inc"

/// The TPU lowering of a kernel that carries its launch: the blocked kernel
/// (no grid expansion: Mosaic pipelines the blocks itself) becomes the
/// Mosaic kernel function and its transforms (`pallas-opt
/// --pallas-mosaic-pipeline`). Serialisation (mosaic-serialize) follows in
/// the backend.
void buildMosaicPipeline(OpPassManager &pm);
void registerMosaicPipeline();

} // namespace mlir::pallas

#endif
