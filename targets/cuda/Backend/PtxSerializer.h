//===- PtxSerializer.h - a gpu.module's PTX through LLVM's NVPTX backend --===//
#ifndef PALLAS_TARGETS_CUDA_PTXSERIALIZER_H
#define PALLAS_TARGETS_CUDA_PTXSERIALIZER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <string>

namespace mlir::pallas::cuda {

/// The PTX of `module` for `target`'s chip, the bitcode at `libdevice`
/// linked (none where empty): MLIR's NVVM serialisation (translation to LLVM IR, linking),
/// with the LLVM optimisation the kernels want (the comment atop
/// PtxSerializer.cpp), which differs for `wgmmaCode` (a kernel using
/// wgmma). Errors are reported on the module.
FailureOr<std::string> serializeToPtx(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                                      StringRef libdevice, bool wgmmaCode);

} // namespace mlir::pallas::cuda

#endif
