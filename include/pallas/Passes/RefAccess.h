//===- RefAccess.h - indexed ref accesses as lowerings read them -*- C++ -*-===//
//
// What the host and tile lowerings read off an indexed access of a ref
// before they address it: the writes (store, swap, atomic_rmw) in one
// shape, and the shapes the access's indexers give.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_REFACCESS_H
#define PALLAS_PASSES_REFACCESS_H

#include "pallas/Dialect/Pallas.h"

#include <optional>

namespace mlir::pallas {

/// A store, a swap or an atomic read-modify-write: a masked write of
/// `value` to the window the indexers name, which swap and atomics read
/// before writing.
struct RefWrite {
  Operation *op;
  Value ref;
  ArrayRef<int64_t> indexers; ///< encoded (IndexerList::decode)
  ValueRange indices;
  Value value;
  Value mask; ///< null when unmasked
  std::optional<AtomicKind> atomic;
  bool returnsOld; ///< the op's result is what the window held

  static RefWrite of(StoreOp op);
  static RefWrite of(SwapOp op);
  static RefWrite of(AtomicRMWOp op);
};

/// The shapes an access of `ref` through `indexers` and `indices` gives.
struct AccessShape {
  IndexerList list; ///< expanded to the ref's rank
  /// The tensor indexers' shapes broadcast together (empty without any).
  SmallVector<int64_t> advanced;
  /// The shape read or written.
  SmallVector<int64_t> result;

  /// Fails, with the error at `op`, when the indexers do not give a shape
  /// for the ref (IndexerList::resultShape).
  static FailureOr<AccessShape> of(Operation *op, Value ref, ArrayRef<int64_t> indexers,
                                   ValueRange indices);
};

} // namespace mlir::pallas

#endif
