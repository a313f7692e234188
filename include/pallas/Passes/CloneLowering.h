//===- CloneLowering.h - rebuilding ops whose regions get lowered -*- C++ -*-===//
#ifndef PALLAS_PASSES_CLONELOWERING_H
#define PALLAS_PASSES_CLONELOWERING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::pallas {

/// Clones `op` at `b` with its operands remapped through `values`; the
/// blocks of its regions are recreated (arguments mapped) and filled by
/// `lowerBlock(source block)`, called with `b` at the new block's end. The
/// lowerings use it for scf and other ops they pass through unchanged.
LogicalResult
cloneLoweringRegions(OpBuilder &b, Operation *op, IRMapping &values,
                     function_ref<LogicalResult(Block &)> lowerBlock,
                     function_ref<Type(Type)> convertType = nullptr);

} // namespace mlir::pallas

#endif
