//===- LaunchAttributes.h - the launch spec as IR attributes ----*- C++ -*-===//
//
// The driver writes the (vmap-applied) spec onto the kernel as attributes, so
// that passes read the launch from the IR alone and run in pallas-opt:
//
//   kernel:   pallas.grid = array<i64: ...>
//             pallas.dimension_semantics = ["parallel", "arbitrary", ...]
//             pallas.batch_axes = N          (leading grid axes added by vmap)
//             pallas.symbol = "name"         (artifact and C symbol prefix)
//   argument: pallas.role = "prefetch" | "input" | "output" | "scratch"
//             pallas.name = "x"
//             pallas.shape = array<i64: ...> (the whole array)
//             pallas.block = array<i64: ...> (0 marks a squeezed dim)
//             pallas.index_map = affine_map<...> | pallas.index_fn = @fn
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_SPEC_LAUNCHATTRIBUTES_H
#define PALLAS_SPEC_LAUNCHATTRIBUTES_H

#include "pallas/Spec/LaunchSpec.h"

namespace mlir::pallas::attr {
constexpr llvm::StringLiteral kGrid = "pallas.grid";
constexpr llvm::StringLiteral kDimensionSemantics = "pallas.dimension_semantics";
constexpr llvm::StringLiteral kBatchAxes = "pallas.batch_axes";
constexpr llvm::StringLiteral kExpanded = "pallas.expanded";
constexpr llvm::StringLiteral kSymbol = "pallas.symbol";
constexpr llvm::StringLiteral kRole = "pallas.role";
constexpr llvm::StringLiteral kName = "pallas.name";
constexpr llvm::StringLiteral kShape = "pallas.shape";
constexpr llvm::StringLiteral kBlock = "pallas.block";
constexpr llvm::StringLiteral kIndexMap = "pallas.index_map";
constexpr llvm::StringLiteral kIndexFn = "pallas.index_fn";
} // namespace mlir::pallas::attr

namespace mlir::pallas {

/// Writes `spec` (already through applyVmap) onto `kernel`. `batchAxes` is
/// the number of grid axes vmap added in front.
void attachLaunchAttributes(KernelOp kernel, const LaunchSpec &spec,
                            unsigned batchAxes);

/// The grid a kernel carries, empty when it has none.
SmallVector<int64_t> kernelGrid(KernelOp kernel);

} // namespace mlir::pallas

#endif
