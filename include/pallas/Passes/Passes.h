//===- Passes.h - target-independent pallas passes -*- C++ -*-===//
#ifndef PALLAS_PASSES_PASSES_H
#define PALLAS_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Passes/Passes.h.inc"

} // namespace mlir::pallas

#endif
