//===- Builders.h - small IR and PTX builders of the conversion -*- C++ -*-===//
//
// The pieces convert-tile-to-nvvm's patterns build per thread again and
// again: constants, the slots of a per-thread vector, row-major indices,
// inline PTX, barriers and a reduce or scan combiner run on scalars.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_BUILDERS_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_BUILDERS_H

#include "mlir/IR/Builders.h"

namespace mlir::pallas::cuda {

struct SimtState;

Value constI32(OpBuilder &b, Location loc, int64_t v);
Value constI64(OpBuilder &b, Location loc, int64_t v);
/// Element `i` of a per-thread vector; the vector of scalars `elems`.
Value extractSlot(OpBuilder &b, Location loc, Value vec, int64_t i);
Value buildVector(OpBuilder &b, Location loc, ArrayRef<Value> elems);
/// Coordinates (i32) of a row-major element index in `shape`.
SmallVector<Value> unravel(OpBuilder &b, Location loc, Value index,
                           ArrayRef<int64_t> shape);
/// Row-major index (i32) of coordinates in `shape`.
Value ravel(OpBuilder &b, Location loc, ArrayRef<Value> coords,
            ArrayRef<int64_t> shape);

/// Inline PTX `text` with side effects (kept in place and order) on
/// `operands` under `constraints`; its result of `resultType`, or null
/// when that is null.
Value inlinePtx(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                StringRef text, StringRef constraints);

void barrier(OpBuilder &b, Location loc);
/// fence.proxy.async.shared::cta: the CTA's shared-memory accesses so far
/// are ordered before what the async proxy (TMA, wgmma) does next.
void fenceAsyncShared(OpBuilder &b, Location loc);
/// `mbarrier.arrive` on the CTA's mbarrier at `bar` (!llvm.ptr<3>) by the
/// threads where `pred` (i1) holds, as predicated inline PTX (no branch:
/// it may stand between a wgmma and its wait).
void predicatedArrive(OpBuilder &b, Location loc, Value pred, Value bar);
/// `mbarrier.arrive` on the mbarrier at `bar`'s place in cluster CTA `rank`
/// (i32; mapa) by the threads where `pred` (i1) holds, predicated as above.
/// Release at CTA scope: the ring pipelines release reads already complete
/// (release at cluster scope made the 4096^3 GEMM 0.63x as fast).
void predicatedRemoteArrive(OpBuilder &b, Location loc, Value pred, Value bar, Value rank);
/// Waits until the mbarrier at `bar` completed its phase of parity `phase`
/// (i32), acquiring at cluster scope: what the cluster's CTAs did before
/// arriving happens before what this thread does next.
void waitAtClusterScope(OpBuilder &b, Location loc, Value bar, Value phase);
/// `v` (i32) as lane 0 of the warp holds it (shfl.sync.idx): the same in
/// every lane, which ptxas then knows.
Value fromLaneZero(OpBuilder &b, Location loc, Value v);
/// Every thread of every CTA of the cluster meets (barrier.cluster arrive
/// with release, wait with acquire semantics).
void clusterBarrier(OpBuilder &b, Location loc);
/// Warpgroup turns (pallas_gpu.turns_begin): warpgroup g's turn is named
/// barrier 1 + g, between it (waiting) and warpgroup g - 1 (passing the
/// turn on). takeTurn waits for this thread's warpgroup's turn, passTurn
/// hands it to the next warpgroup.
void takeTurn(OpBuilder &b, Location loc, const SimtState &s);
void passTurn(OpBuilder &b, Location loc, const SimtState &s);
/// The threads of this thread's warpgroup (of `s.threads`, several) meet:
/// named barrier 2 + warpgroups + g for warpgroup g, counting 128, above
/// the turns' ids and the consumers' CTA barrier.
void warpgroupBarrier(OpBuilder &b, Location loc, const SimtState &s);

/// Runs a reduce/scan combiner region on scalars: `acc` then `x` operands.
SmallVector<Value> combine(OpBuilder &b, Location loc, Region &region,
                           ValueRange acc, ValueRange x);

} // namespace mlir::pallas::cuda

#endif
