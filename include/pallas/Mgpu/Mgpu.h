//===- Mgpu.h - the Pallas:MGPU model (plgpu.kernel) ------------*- C++ -*-===//
#ifndef PALLAS_MGPU_MGPU_H
#define PALLAS_MGPU_MGPU_H

#include "pallas/Dialect/Pallas.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pallas/Mgpu/MgpuDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Mgpu/MgpuAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Mgpu/MgpuTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/Mgpu/MgpuOps.h.inc"

namespace mlir::pallas::plgpu {
/// The mesh of the plgpu.kernel `op` is in, or null outside one.
MeshAttr getKernelMesh(Operation *op);
/// The mesh of `kernel`, or null when it is a pallas_call kernel.
MeshAttr getMesh(KernelOp kernel);
} // namespace mlir::pallas::plgpu

#endif // PALLAS_MGPU_MGPU_H
