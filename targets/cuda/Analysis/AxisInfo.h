//===- AxisInfo.h - what is known of tile values along their last dim -*- C++ -*-===//
//
// For the tile IR values that address memory: along the last dimension,
// how many consecutive elements increase by exactly one (contiguity), how
// many are equal (constancy), and the largest power of two dividing the
// first element of each such run (divisibility; in bytes for pointers).
// The loads and stores use it to issue one vector access per chunk with no
// run-time checks when the chunk is known to be contiguous and aligned.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_AXISINFO_H
#define PALLAS_TARGETS_CUDA_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::pallas::cuda {

struct AxisInfo {
  int64_t contiguity = 1;
  int64_t constancy = 1;
  int64_t divisibility = 1;
};

class AxisInfoAnalysis {
public:
  /// What is known of `v` (a scalar: its divisibility only).
  AxisInfo get(Value v);

private:
  AxisInfo compute(Value v, int depth);
  llvm::DenseMap<Value, AxisInfo> known;
};

/// The integer every element of `v` holds, when that is a compile-time
/// constant: a dense splat constant, or a splat of a constant scalar (or
/// the constant scalar itself).
std::optional<int64_t> splatIntConstant(Value v);

/// For a 2-D index or pointer tile that is affine in the element
/// coordinates with constant steps (iotas, splats and constants combined by
/// additions, multiplications by constants and tt.addptr): how much it
/// grows from one row to the next (in elements, for pointers). None
/// otherwise. Lets a thread's copies of rows a fixed distance apart share
/// one address computation.
std::optional<int64_t> rowStep(Value v);

/// As rowStep, where the tile may also be multiplied by one scalar value
/// (a symbolic size): the row step as `constant * factor` (factor null when
/// the step is a constant). Only a factor that multiplies every non-zero
/// step the same way is recognised.
struct RowStep {
  int64_t constant = 0;
  Value factor;
};
std::optional<RowStep> symbolicRowStep(Value v);

} // namespace mlir::pallas::cuda

#endif
