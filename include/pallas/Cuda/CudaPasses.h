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
#include "pallas/Gpu/Gpu.h"
#include "pallas/Triton/Triton.h"

namespace mlir::pallas {

/// What convert-pallas-to-nvvm leaves for the launch code: the dynamic
/// shared memory (bytes) each gpu.func needs, and on the module the most
/// any of them needs. The launch grid is the gpu.func's known_grid_size.
constexpr llvm::StringLiteral kSharedBytesAttrName = "pallas_gpu.shared_bytes";

#define GEN_PASS_DECL
#include "pallas/Cuda/CudaPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Cuda/CudaPasses.h.inc"

} // namespace mlir::pallas

#endif
