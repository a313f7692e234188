//===- Patterns.h - convert-tile-to-nvvm's pattern sets ---------*- C++ -*-===//
//
// The patterns of the conversion beyond ConvertTileToNVVM.cpp's own, by
// the file that holds them, and what those files answer the pass (how
// much shared memory an op will need) and each other.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_PATTERNS_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_PATTERNS_H

#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::pallas::cuda {

struct SimtState;

// --- SimtDataMovement.cpp ---------------------------------------------------

/// Patterns for the ops that move elements between threads (broadcast,
/// trans, join, reduce, scan, dot).
void populateSimtDataMovementPatterns(const TypeConverter &tc,
                                      RewritePatternSet &patterns,
                                      SimtState &state);
/// Whether lowering `op` exchanges values through shared memory (else each
/// thread has or recomputes what it needs).
bool broadcastUsesScratch(tt::BroadcastOp op);
bool layoutCastUsesScratch(tensor::CastOp op);
/// Writes a tensor-core accumulator (swizzlableAccumulator) into the
/// scratch area of shared memory, laid out with the 128-byte swizzle (as
/// the TMA reads a box of 128-byte columns), one store per pair of adjacent
/// columns, after a CTA barrier (the area's previous readers are done); the
/// layout written. The caller places the barrier after.
OperandSmemLayout writeAccumulatorSwizzled(OpBuilder &b, Location loc, SimtState &s,
                                           Value perThread, RankedTensorType src);
/// A thread's slots of the whole tiles `to` covers of a tensor-core value
/// in layout `from` (`perThread`), from 16-row tile `tm0` and 8-column
/// tile `tn0` on: a static slice of them, in `to`'s slot order.
Value sliceMmaTiles(OpBuilder &b, Location loc, Value perThread, const MmaLayout &from,
                    const MmaLayout &to, int64_t tm0, int64_t tn0);

// --- UserScheduleLowering.cpp ----------------------------------------------

/// Patterns for the ops of kernels that schedule their own copies
/// (GpuUserScheduleOps.td); mbarrier arrays become their i32 offset.
void populateUserSchedulePatterns(const TypeConverter &tc, RewritePatternSet &patterns,
                                  SimtState &state);

// --- RingLowering.cpp -------------------------------------------------------

/// Patterns for the pallas_gpu ring ops (alloc_ring, async_copy,
/// async_commit, async_wait, ring_read); rings become their i32 offset.
void populateRingPatterns(const TypeConverter &tc, RewritePatternSet &patterns, SimtState &state);
/// The elements one cp.async of `copy` moves, or 0 where its addresses are
/// not known to allow any (contiguous and aligned 4-, 8- or 16-byte pieces
/// under one mask bit, within a row): then the copy is made of plain loads
/// and stores, an element at a time.
int64_t cpAsyncPiece(pgpu::AsyncCopyOp copy, const SimtState &s);

// --- WgmmaLowering.cpp ------------------------------------------------------

/// pallas_gpu.dot_wait.
void populateWgmmaPatterns(const TypeConverter &tc, RewritePatternSet &patterns, SimtState &state);

} // namespace mlir::pallas::cuda

#endif
