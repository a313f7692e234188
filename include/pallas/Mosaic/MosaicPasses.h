//===- MosaicPasses.h - the Mosaic TPU backend's passes ---------*- C++ -*-===//
#ifndef PALLAS_MOSAIC_MOSAICPASSES_H
#define PALLAS_MOSAIC_MOSAICPASSES_H

#include "pallas/Mosaic/Tpu.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Mosaic/MosaicPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Mosaic/MosaicPasses.h.inc"

} // namespace mlir::pallas

#endif
