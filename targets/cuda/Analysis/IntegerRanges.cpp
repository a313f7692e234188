//===- IntegerRanges.cpp - what integer range analysis knows --------------===//
#include "Analysis/IntegerRanges.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"

using namespace mlir;

LogicalResult mlir::pallas::cuda::runIntegerRangeAnalysis(DataFlowSolver &solver, Operation *root) {
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  return solver.initializeAndRun(root);
}

std::optional<ConstantIntRanges> mlir::pallas::cuda::knownRange(DataFlowSolver &solver, Value v) {
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}
