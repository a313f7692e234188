//===- TritonPasses.h - the triton backend's passes -*- C++ -*-===//
#ifndef PALLAS_TRITON_TRITONPASSES_H
#define PALLAS_TRITON_TRITONPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "pallas/Triton/Triton.h"

namespace mlir::pallas {

#define GEN_PASS_DECL
#include "pallas/Triton/TritonPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "pallas/Triton/TritonPasses.h.inc"

} // namespace mlir::pallas

#endif
