//===- LoopFootprint.h - the elements a loop holds at once -----*- C++ -*-===//
//
// The estimate the program-shaping passes size loops by: what a loop
// holds across its trips (its carried tensors) plus the two largest
// tensors its body makes, which are live together at the loop's busiest
// point (attention's scores beside the probabilities, or dP beside dS).
// Counting every value would charge a loop for temporaries that never
// coexist; counting only the largest, for none of them.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_LOOPFOOTPRINT_H
#define PALLAS_PASSES_LOOPFOOTPRINT_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::pallas {

/// Elements `loop` holds at its peak: every carried tensor's, plus the two
/// largest of the tensors its body makes as `counted` sizes them (0: not
/// held in registers, or not of interest).
int64_t loopHeldElements(scf::ForOp loop, function_ref<int64_t(Value)> counted);

} // namespace mlir::pallas

#endif // PALLAS_PASSES_LOOPFOOTPRINT_H
