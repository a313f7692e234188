//===- TritonPasses.h - the triton backend's passes -*- C++ -*-===//
#ifndef PALLAS_TRITON_TRITONPASSES_H
#define PALLAS_TRITON_TRITONPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pallas/Triton/Triton.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Triton/TritonPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Triton/TritonPasses.h.inc"

/// The triton lowering of a kernel that carries its launch: programs split
/// to one CTA's worth, dots streamed over K, the grid expanded, then
/// convert-pallas-to-triton (`pallas-opt --pallas-triton-pipeline`).
void buildTritonPipeline(OpPassManager &pm);
void registerTritonPipeline();

/// What the triton target and the CUDA targets (which lower through Triton
/// IR) run before convert-pallas-to-triton. `maxElements`: output blocks of
/// at most this many elements stay whole (0: split by tile size alone).
void addProgramShaping(OpPassManager &pm, int64_t maxElements);

} // namespace mlir::pallas

#endif
