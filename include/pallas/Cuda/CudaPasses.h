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

#define GEN_PASS_DECL
#include "pallas/Cuda/CudaPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Cuda/CudaPasses.h.inc"

} // namespace mlir::pallas

#endif
