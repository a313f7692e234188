//===- HostPipeline.h - kernel to LLVM dialect for the host -----*- C++ -*-===//
#ifndef PALLAS_HOST_HOSTPIPELINE_H
#define PALLAS_HOST_HOSTPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::pallas {

/// The host lowering of a kernel that carries its launch: grid expansion,
/// convert-pallas-to-host, bufferization and the LLVM dialect
/// (`pallas-opt --pallas-host-pipeline`; pallasc runs the same).
void buildHostPipeline(OpPassManager &pm);
void registerHostPipeline();

} // namespace mlir::pallas

#endif
