//===- TritonPasses.h - the triton backend's passes -*- C++ -*-===//
#ifndef PALLAS_TRITON_TRITONPASSES_H
#define PALLAS_TRITON_TRITONPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pallas/Tile/Tile.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Triton/TritonPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Triton/TritonPasses.h.inc"

/// The triton lowering of a kernel that carries its launch: the program
/// shaping of tile/ProgramShaping.cpp, convert-pallas-to-tile, then
/// pallas-triton-legalize (`pallas-opt --pallas-triton-pipeline`).
void buildTritonPipeline(OpPassManager &pm);
void registerTritonPipeline();

} // namespace mlir::pallas

#endif
