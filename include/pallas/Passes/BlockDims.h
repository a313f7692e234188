//===- BlockDims.h - which block dims travel together ----------*- C++ -*-===//
//
// A union-find over (value, dim) pairs of a kernel's refs and tensors: dims
// tied together through elementwise ops, whole-ref loads and stores, the
// M/N dims of dots, broadcasts and structured control flow form a class;
// a class is blocked where some op mixes or reduces it (a dot's K, a
// reduction, a reshape, a partial access). Programs may be split or merged
// along an unblocked class (pallas-split-programs, pallas-merge-programs).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_BLOCKDIMS_H
#define PALLAS_PASSES_BLOCKDIMS_H

#include "pallas/Dialect/Pallas.h"

#include "llvm/ADT/EquivalenceClasses.h"

namespace mlir::pallas {

using Slot = std::pair<void *, unsigned>; // (value, dim)

ArrayRef<int64_t> shapeOf(Type t);

class DimClasses {
public:
  void add(Value v);
  void join(Value a, unsigned da, Value b, unsigned db);
  /// Same shape: dim i with dim i.
  void joinAll(Value a, Value b);
  /// Dim `dim` of v (every dim: -1) may not change.
  void block(Value v, int dim = -1);
  /// The class of dim d of v (a class of its own where the analysis never
  /// met v: a dead value, an op it does not follow).
  Slot leader(Value v, unsigned d) {
    classes.insert(slot(v, d));
    return classes.getLeaderValue(slot(v, d));
  }
  /// Dim d of v is a dot's batch dim.
  void markBatch(Value v, unsigned d) { batch.push_back(slot(v, d)); }
  bool isBatch(Slot leaderSlot);
  bool isBlocked(Slot leaderSlot);

private:
  static Slot slot(Value v, unsigned d) { return {v.getAsOpaquePointer(), d}; }
  llvm::EquivalenceClasses<Slot> classes;
  SmallVector<Slot> blocked, batch;
};

/// Collects the classes of `kernel`'s block dims; false where its programs
/// must not be reshaped at all (side effects that would repeat or move:
/// atomics, DMA, semaphores, prints). With `partialAccesses`, a load or
/// store that slices its ref ties the ref's whole (`:`) dims to the value's
/// and blocks the sliced ones; without, it blocks every dim it touches.
bool analyseBlockDims(KernelOp kernel, DimClasses &dims, bool partialAccesses = false);

/// Gives `v` (a ref or a ranked tensor) shape `shape`, its element type
/// (and memory space) kept.
void setShape(Value v, ArrayRef<int64_t> shape);

/// Retypes the tensors of `kernel`'s body after its blocks changed shape:
/// `retype` is called on each tensor argument of a nested block and each
/// tensor result, and says whether it changed the type; a splat constant
/// whose type changed holds its value in the new type.
void retypeTensors(KernelOp kernel, function_ref<bool(Value)> retype);

/// Whether `kernel` is a K loop as written: a sequential grid axis runs a
/// dot per program, or a dot of whole blocks contracts a K longer than 128
/// (which pallas-stream-dot-k turns into a loop); and a CTA holds its
/// output blocks in registers (128 elements per thread). pallas-split-
/// programs leaves such programs whole (keep-sequential-dots).
bool isKLoopAsWritten(KernelOp kernel, LaunchAttr launch);

} // namespace mlir::pallas

#endif
