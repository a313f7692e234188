//===- SharedMemory.h - shared-memory accesses, scratch area ----*- C++ -*-===//
//
// Byte addresses in shared memory, and the scratch area (SimtState::smem)
// through which ops whose threads exchange values (broadcasts, layout
// changes, transposes, reductions) go: each element at its row-major
// index, the kernel's footprint the largest any op reserves.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_SHAREDMEMORY_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_SHAREDMEMORY_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::pallas::cuda {

struct SimtState;

/// The shared-memory address `bytes` (i32) past `base` (!llvm.ptr<3>).
Value smemByteAddress(OpBuilder &b, Location loc, Value base, Value bytes);
/// Shared memory: element `index` (i32) of an array of `elem` at byte
/// `offset`. i1 is kept as i8.
Value smemLoad(OpBuilder &b, Location loc, SimtState &s, Type elem,
               int64_t offset, Value index);
void smemStore(OpBuilder &b, Location loc, SimtState &s, int64_t offset,
               Value index, Value value);
/// Writes a whole distributed tensor (each element at its row-major index)
/// to shared memory at `offset`; a barrier comes before and after, so the
/// caller may read any element right away (in a warpgroup's own area, as
/// ScratchArea sets for a broadcast within warpgroups, each warpgroup
/// writes its copy and the barriers are its own). Returns the bytes used.
int64_t smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                        int64_t offset, Value perThread, int64_t numElements);
/// The same for a tensor in any layout (blocked or mma). `padded`: element
/// i at paddedIndex(i) instead.
int64_t smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                        int64_t offset, Value perThread, RankedTensorType type,
                        bool padded = false);
/// i + i / 32: one spare word per 32 elements, so that neither the mma
/// layouts' rows nor the blocked layout's chunks of 8 meet in the same
/// banks when a tensor is exchanged through shared memory.
Value paddedIndex(OpBuilder &b, Location loc, Value index);
/// Notes that the kernel uses `bytes` of shared memory.
void reserveSmem(SimtState &s, int64_t bytes);

} // namespace mlir::pallas::cuda

#endif
