//===- CudaPasses.h - the CUDA backend's passes -*- C++ -*-===//
#ifndef PALLAS_CUDA_CUDAPASSES_H
#define PALLAS_CUDA_CUDAPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Tile/Tile.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Cuda/CudaPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Cuda/CudaPasses.h.inc"

/// What differs between the chips one kernel is compiled for (num_warps and
/// num_stages come with the kernel's #pallas.launch).
struct CudaPipelineOptions : public PassPipelineOptions<CudaPipelineOptions> {
  Option<bool> wgmma{*this, "wgmma", llvm::cl::desc("use wgmma (sm_90a) for dots"),
                     llvm::cl::init(false)};
  Option<bool> warpgroupTurns{
      *this, "warpgroup-turns",
      llvm::cl::desc("with wgmma: warpgroups take turns at a loop's dots (pallas-warpgroup-turns)"),
      llvm::cl::init(true)};
  Option<bool> tma{*this, "tma",
                   llvm::cl::desc("with wgmma: copy eligible staged blocks with the TMA"),
                   llvm::cl::init(false)};
  Option<bool> producer{
      *this, "producer",
      llvm::cl::desc("with tma: a producer warpgroup issues the copies (warp specialization)"),
      llvm::cl::init(false)};
  Option<int64_t> persistentCtas{
      *this, "persistent-ctas",
      llvm::cl::desc("with producer: CTAs of a persistent launch (the chip's SMs; 0: none)"),
      llvm::cl::init(0)};
  Option<int64_t> cluster{
      *this, "cluster",
      llvm::cl::desc("with producer: CTAs per thread-block cluster (pallas-cluster-multicast)"),
      llvm::cl::init(1)};
  Option<bool> userSchedule{
      *this, "user-schedule",
      llvm::cl::desc("with wgmma: lower plgpu kernels with their own schedule "
                     "(convert-plgpu-to-tile) instead of in program order"),
      llvm::cl::init(false)};
  Option<bool> tmaStoreArea{
      *this, "tma-store-area",
      llvm::cl::desc("TMA stores in a loop get a shared-memory area of their own"),
      llvm::cl::init(true)};
  Option<int64_t> sharedBytes{
      *this, "shared-bytes",
      llvm::cl::desc("shared memory loops may stage blocks in (0: stream through registers)"),
      llvm::cl::init(49152)};
};

/// The CUDA lowering of a kernel that carries its launch, up to the
/// per-thread `gpu.module` (NVVM dialect): through Triton IR, layouts,
/// staged loads and convert-tile-to-nvvm (`pallas-opt
/// --pallas-cuda-pipeline='wgmma=true shared-bytes=232448'`).
void buildCudaPipeline(OpPassManager &pm, const CudaPipelineOptions &options);
void registerCudaPipeline();

} // namespace mlir::pallas

#endif
