//===- Tpu.h - the subset of Mosaic's `tpu` dialect we emit -----*- C++ -*-===//
#ifndef PALLAS_MOSAIC_TPU_H
#define PALLAS_MOSAIC_TPU_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pallas/Mosaic/TpuDialect.h.inc"
#include "pallas/Mosaic/TpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Mosaic/TpuAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "pallas/Mosaic/TpuTypes.h.inc"
#define GET_OP_CLASSES
#include "pallas/Mosaic/TpuOps.h.inc"

#endif
