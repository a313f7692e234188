//===- MosaicPipeline.h - kernel to a Mosaic module -------------*- C++ -*-===//
#ifndef PALLAS_MOSAIC_MOSAICPIPELINE_H
#define PALLAS_MOSAIC_MOSAICPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::pallas {

/// The TPU lowering of a kernel that carries its launch: the blocked kernel
/// (no grid expansion: Mosaic pipelines the blocks itself) becomes the
/// Mosaic kernel function and its transforms (`pallas-opt
/// --pallas-mosaic-pipeline`). Serialisation (mosaic-serialize) follows in
/// the backend.
void buildMosaicPipeline(OpPassManager &pm);
void registerMosaicPipeline();

} // namespace mlir::pallas

#endif
