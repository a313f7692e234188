//===- Layouts.h - register layouts of tile IR tensors on CUDA --*- C++ -*-===//
//
// How a tensor's elements are spread over the threads of a CTA: the
// blocked layout of unencoded tensors, and the tensor-core layouts the
// #pallas_gpu.mma, #pallas_gpu.wgmma and #pallas_gpu.slice encodings
// (include/pallas/Gpu/GpuAttrs.td) stand for. pallas-assign-layouts picks
// them, the transforms after it ask about them, convert-tile-to-nvvm
// lowers by them.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_DIALECT_LAYOUTS_H
#define PALLAS_TARGETS_CUDA_DIALECT_LAYOUTS_H

#include "pallas/Dialect/Pallas.h"
#include "pallas/Tile/Tile.h"

#include <optional>

namespace mlir::pallas::cuda {

/// The blocked layout of N elements over T threads: the row-major element
/// order is cut into chunks of `vec` (4, or 8 for big tiles) consecutive
/// elements; chunk c belongs
/// to thread c mod T. With fewer chunks than threads, thread t holds chunk
/// t mod chunks (a replica). It depends on N only, so reshapes and
/// expand_dims keep every element where it is.
struct BlockedLayout {
  int64_t numElements, threads, vec, chunks, perThread;
  BlockedLayout(int64_t numElements, int64_t threads);
  bool replicated() const { return chunks < threads; }
};

/// The register layout of mma.sync (m16n8) results: warps tile the [M, N]
/// tensor warpsM x warpsN; each warp holds tilesM x tilesN tiles of 16x8,
/// four elements per thread per tile (PTX ISA, "mma.m16n8k16" fragments).
struct MmaLayout {
  int64_t m = 0, n = 0, warpsM = 1, warpsN = 1, tilesM = 0, tilesN = 0;
  /// How a warp's 16-row tiles lie: one after another (mma.sync: warp w's
  /// rows are a block of m / warpsM), or interleaved with the other warps'
  /// (wgmma: tile t of warp w is rows 16 w + 16 warpsM t, so that tile t of
  /// a warpgroup's four warps is one m64 block, as one wgmma computes it).
  bool interleaved = false;
  /// How warps are numbered over the warpsM x warpsN grid: row-major
  /// (warp w at (w / warpsN, w % warpsN)), or along M first (w % warpsM,
  /// w / warpsM), as wgmma's warpgroups lie when they split the columns.
  bool warpsAlongMFirst = false;
  int64_t perThread() const { return tilesM * tilesN * 4; }
  int64_t warpM(int64_t warp) const { return warpsAlongMFirst ? warp % warpsM : warp / warpsN; }
  int64_t warpN(int64_t warp) const { return warpsAlongMFirst ? warp / warpsM : warp % warpsN; }
  /// Rows between the first rows of consecutive warps (along M), and
  /// between a warp's consecutive 16-row tiles.
  int64_t warpRowStride() const { return interleaved ? 16 : m / warpsM; }
  int64_t tileRowStride() const { return interleaved ? 16 * warpsM : 16; }
  /// The layout for an [m, n] result on `threads` threads; none when the
  /// shape does not tile evenly over the warps.
  static std::optional<MmaLayout> forShape(int64_t m, int64_t n, int64_t threads);
  /// Each warp holding whole rows (warpsN = 1), as attention wants: a row
  /// reduction, the broadcast back and the next dot's A then stay in the
  /// registers. None when the rows do not split evenly into 16-row tiles
  /// per warp.
  static std::optional<MmaLayout> wholeRows(int64_t m, int64_t n, int64_t threads);
};

/// The wgmma layout for [m, n] on `threads` threads, when wgmma can run it
/// (up to `maxTilesM` m64 blocks per warpgroup, n a multiple of 8 up to
/// 256).
std::optional<MmaLayout> wgmmaLayout(int64_t m, int64_t n, int64_t threads,
                                     int64_t maxTilesM = 1);
/// The wgmma layout for [m, n] where there are more warpgroups than m64
/// blocks: the warpgroups left over split the columns (n / groups each, a
/// multiple of `columnQuantum`: B's columns a descriptor can start at).
/// None where wgmmaLayout applies or the columns do not split so.
std::optional<MmaLayout> wgmmaColumnSplitLayout(int64_t m, int64_t n, int64_t threads,
                                                int64_t columnQuantum);

/// The tensor encodings pallas-assign-layouts gives values kept in a tensor
/// core layout (a dot's accumulator, also across loop iterations):
/// #pallas_gpu.mma for mma.sync (the warps of MmaLayout::forShape),
/// #pallas_gpu.wgmma for Hopper's warpgroup MMA (each warp owns 16
/// consecutive rows: warpsM = warps, warpsN = 1).
Attribute mmaEncoding(MLIRContext *ctx, const MmaLayout &layout);
Attribute wgmmaEncoding(MLIRContext *ctx, int64_t warps, int64_t columnGroups = 1);
/// Whether `type` is in a wgmma layout whose warpgroups split the columns
/// (no warpgroup holds whole rows).
bool hasColumnSplitWgmmaLayout(Type type);
/// hasMmaLayout: either encoding; hasWgmmaLayout: #pallas_gpu.wgmma.
bool hasMmaLayout(Type type);
bool hasWgmmaLayout(Type type);
/// #pallas_gpu.wgmma_f8_a: an f8 A operand of wgmma in registers (as many
/// elements per thread as the wgmma layout of the same shape).
bool hasWgmmaF8ALayout(Type type);
/// The register layout a tensor's encoding gives it; none without one.
std::optional<MmaLayout> mmaLayoutOf(RankedTensorType type);

/// #pallas_gpu.slice: the rows of a tensor-core layout, one value per row
/// (row reductions end in it, broadcasts along rows start from it).
bool hasSliceLayout(Type type);
Attribute sliceEncoding(MLIRContext *ctx, Attribute parent);
/// For a tensor [M] or [M, 1] in a slice layout: its parent's layout for
/// [M, 8 * warpsN] (its rows: warpsM, tilesM); none otherwise.
std::optional<MmaLayout> sliceParentOf(RankedTensorType type);

/// The launch (num_warps, num_stages) of the function holding `op`: the
/// kernel's #pallas.launch, which convert-pallas-to-tile keeps on the
/// tt.func. Null when there is none. Its warps are the threads the layouts
/// spread tensors over.
LaunchAttr launchOf(Operation *op);

/// Registers a thread (of `threads`) of `func` is estimated to need: what
/// its loops carry and their dots' results (the accumulators), 32-bit
/// each, beside 32 for addresses and the rest.
int64_t loopRegisterEstimate(tt::FuncOp func, int64_t threads);

} // namespace mlir::pallas::cuda

#endif
