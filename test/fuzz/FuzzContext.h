//===- FuzzContext.h - the MLIR context every fuzz input shares -*- C++ -*-===//
#ifndef PALLAS_TEST_FUZZ_FUZZCONTEXT_H
#define PALLAS_TEST_FUZZ_FUZZCONTEXT_H

#include "pallas/Driver/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

/// One context for all inputs: creating one and loading the dialects would
/// be most of the cost of an input otherwise. Inputs only add uniqued
/// types, attributes and locations to it.
inline mlir::MLIRContext &fuzzContext() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    mlir::pallas::registerPallasDialects(registry);
    return new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
  }();
  return *ctx;
}

#endif
