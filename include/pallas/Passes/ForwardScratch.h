//===- ForwardScratch.h - scratch refs read back what was stored -*- C++ -*-===//
#ifndef PALLAS_PASSES_FORWARDSCRATCH_H
#define PALLAS_PASSES_FORWARDSCRATCH_H

#include "pallas/Dialect/Pallas.h"

namespace mlir::pallas {
/// For the scoped refs of `kernel` only ever loaded and stored whole: each
/// scf.for that reads one before writing it carries its value as an
/// iteration argument; each whole load after a store in the same block
/// takes the stored value; stores no load reads back are dropped.
void forwardWholeScratch(KernelOp kernel);
} // namespace mlir::pallas

#endif // PALLAS_PASSES_FORWARDSCRATCH_H
