//===- SpecChecker.h - matching a launch spec against a kernel --*- C++ -*-===//
#ifndef PALLAS_SPEC_SPECCHECKER_H
#define PALLAS_SPEC_SPECCHECKER_H

#include "pallas/Spec/LaunchSpec.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::pallas {

/// Finds the spec's kernel in `module` and checks that the two agree: ref
/// count and order, block shapes (after squeezing) against ref shapes, dtypes,
/// index-map arity, `@fn` index maps, scratch, vmap axes. Each mismatch is an
/// error at the JSON path with a note at the IR location.
FailureOr<KernelOp> checkSpecAgainstKernel(const LaunchSpec &spec,
                                           ModuleOp module);

} // namespace mlir::pallas

#endif
