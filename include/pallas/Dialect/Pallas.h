//===- Pallas.h - the pallas dialect ----------------------------*- C++ -*-===//
#ifndef PALLAS_DIALECT_PALLAS_H
#define PALLAS_DIALECT_PALLAS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pallas/Dialect/Indexers.h"

#include "pallas/Dialect/PallasDialect.h.inc"
#include "pallas/Dialect/PallasEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Dialect/PallasAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Dialect/PallasTypes.h.inc"

#define GET_OP_CLASSES
#include "pallas/Dialect/PallasOps.h.inc"

#endif // PALLAS_DIALECT_PALLAS_H
