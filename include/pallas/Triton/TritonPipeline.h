//===- TritonPipeline.h - kernel to Triton IR -------------------*- C++ -*-===//
#ifndef PALLAS_TRITON_TRITONPIPELINE_H
#define PALLAS_TRITON_TRITONPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::pallas {

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
