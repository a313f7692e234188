//===- IntegerRanges.h - what integer range analysis knows -*- C++ -*-===//
//
// Passes that act on what the integers of a kernel can be (a mask true for
// every element, a loop's most trips) run upstream integer range analysis
// the same way and read its ranges the same way.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_INTEGERRANGES_H
#define PALLAS_TARGETS_CUDA_INTEGERRANGES_H

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"

#include <optional>

namespace mlir::pallas::cuda {

/// Runs integer range analysis over `root` in `solver` (with the dead code
/// and constant propagation analyses it needs). Fails where the solver does.
LogicalResult runIntegerRangeAnalysis(DataFlowSolver &solver, Operation *root);

/// The range `solver` knows `v` to lie in; none where it knows nothing.
std::optional<ConstantIntRanges> knownRange(DataFlowSolver &solver, Value v);

} // namespace mlir::pallas::cuda

#endif
