//===- Gpu.h - tile IR ops for staging blocks in shared memory --*- C++ -*-===//
#ifndef PALLAS_GPU_GPU_H
#define PALLAS_GPU_GPU_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pallas/Gpu/GpuDialect.h.inc"
#include "pallas/Gpu/GpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Gpu/GpuAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Gpu/GpuTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/Gpu/GpuOps.h.inc"

#endif
