//===- PatternBase.h - patterns that hold the kernel state ------*- C++ -*-===//
//
// The base of convert-tile-to-nvvm's patterns: an OpConversionPattern that
// also holds the kernel's SimtState, which the patterns read (thread
// indices, shared-memory placement) and extend (scratch bytes used).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_PATTERNBASE_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_PATTERNBASE_H

#include "TileToNVVM/SimtState.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::pallas::cuda {

/// Base for patterns that need the kernel state.
template <typename Op>
struct SimtPattern : OpConversionPattern<Op> {
  SimtPattern(const TypeConverter &tc, MLIRContext *ctx, SimtState &state,
              PatternBenefit benefit = 1)
      : OpConversionPattern<Op>(tc, ctx, benefit), state(state) {}
  SimtState &state;
};

} // namespace mlir::pallas::cuda

#endif
