//===- CudaPipeline.h - kernel to per-thread GPU code -----------*- C++ -*-===//
#ifndef PALLAS_CUDA_CUDAPIPELINE_H
#define PALLAS_CUDA_CUDAPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::pallas {

/// What differs between chips and launches of one kernel.
struct CudaPipelineOptions : public PassPipelineOptions<CudaPipelineOptions> {
  Option<int64_t> numWarps{*this, "num-warps", llvm::cl::desc("warps per CTA"),
                           llvm::cl::init(4)};
  Option<int64_t> numStages{*this, "num-stages",
                            llvm::cl::desc("shared-memory ring depth of streamed loops"),
                            llvm::cl::init(3)};
  Option<bool> wgmma{*this, "wgmma", llvm::cl::desc("use wgmma (sm_90a) for dots"),
                     llvm::cl::init(false)};
  Option<int64_t> sharedBytes{
      *this, "shared-bytes",
      llvm::cl::desc("shared memory loops may stage blocks in (0: stream through registers)"),
      llvm::cl::init(49152)};
};

/// The CUDA lowering of a kernel that carries its launch, up to the
/// per-thread `gpu.module` (NVVM dialect): through Triton IR, layouts,
/// staged loads and convert-pallas-to-nvvm (`pallas-opt
/// --pallas-cuda-pipeline='num-warps=4 wgmma=true ...'`).
void buildCudaPipeline(OpPassManager &pm, const CudaPipelineOptions &options);
void registerCudaPipeline();

} // namespace mlir::pallas

#endif
