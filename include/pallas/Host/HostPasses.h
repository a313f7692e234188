//===- HostPasses.h - the host backend's passes -*- C++ -*-===//
#ifndef PALLAS_HOST_HOSTPASSES_H
#define PALLAS_HOST_HOSTPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Host/HostPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Host/HostPasses.h.inc"

/// The host lowering of a kernel that carries its launch: grid expansion,
/// convert-pallas-to-host, bufferization and the LLVM dialect
/// (`pallas-opt --pallas-host-pipeline`; pallasc runs the same).
void buildHostPipeline(OpPassManager &pm);

/// On the module of a plgpu kernel of several threads per block:
/// [threads, arena bytes]. Its lowering is `NAME_run_thread(begin, end,
/// arrays..., arena)` over work items block x threads + thread; the host
/// backend adds the `NAME_run_range` over blocks that runs each block's
/// threads side by side on a zeroed arena of their own.
constexpr llvm::StringLiteral kHostThreadsAttrName = "pallasc.host_threads";
/// On the module of a pallas_call kernel: how many leading grid axes its
/// work items span (its leading parallel axes, or fewer where programs
/// along one share an output block); the rest run in order in each.
constexpr llvm::StringLiteral kHostWorkAxesAttrName = "pallasc.host_work_axes";
void registerHostPipeline();

} // namespace mlir::pallas

#endif
