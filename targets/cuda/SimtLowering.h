//===- SimtLowering.h - tile IR to per-thread code, shared pieces -*- C++ -*-===//
//
// convert-pallas-to-nvvm turns the tile-level IR (the `tt` subset, one
// program per CTA) into code that each thread of the CTA runs. A tensor of
// N elements is spread over the T threads by the *blocked* layout below and
// becomes, per thread, one `vector<R x T>` value; ops that move elements
// between threads go through shared memory, reductions through warp
// shuffles.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_SIMTLOWERING_H
#define PALLAS_TARGETS_CUDA_SIMTLOWERING_H

#include "AxisInfo.h"
#include "pallas/Triton/Triton.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

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
  int64_t perThread() const { return tilesM * tilesN * 4; }
  /// The layout for an [m, n] result on `threads` threads; none when the
  /// shape does not tile evenly over the warps.
  static std::optional<MmaLayout> forShape(int64_t m, int64_t n, int64_t threads);
};

/// The tensor encodings pallas-assign-layouts gives values kept in a tensor
/// core layout (a dot's accumulator, also across loop iterations):
/// "pallas.mma" for mma.sync (MmaLayout::forShape), "pallas.wgmma" for
/// Hopper's warpgroup MMA (each warp owns 16 consecutive rows: warpsM =
/// warps, warpsN = 1).
Attribute mmaEncoding(MLIRContext *ctx);
Attribute wgmmaEncoding(MLIRContext *ctx);
/// True for either encoding.
bool hasMmaLayout(Type type);
bool hasWgmmaLayout(Type type);
/// The register layout of a tensor with either encoding.
std::optional<MmaLayout> mmaLayoutOf(RankedTensorType type, int64_t threads);
/// The wgmma layout for [m, n] on `threads` threads, when wgmma can run it
/// (one m64 tile per warpgroup, n a multiple of 8 up to 256).
std::optional<MmaLayout> wgmmaLayout(int64_t m, int64_t n, int64_t threads);

/// Per-kernel state shared by the patterns.
struct SimtState {
  /// For each tensor load and store (computed before the conversion starts,
  /// while the tile IR is whole): its pointers' contiguity and alignment and
  /// its mask's constancy (AxisInfo.h).
  llvm::DenseMap<Operation *, std::pair<AxisInfo, AxisInfo>> access;
  int64_t threads = 128;
  /// The thread index (i32), defined at the kernel entry.
  Value tid;
  /// The dynamic shared memory base (!llvm.ptr<3>), defined at the entry.
  Value smem;
  /// The largest shared-memory footprint any op needs, in bytes.
  int64_t smemBytes = 0;
};

/// Tensors become vector<R x elem> per thread; pointers become i64
/// addresses.
class SimtTypeConverter : public TypeConverter {
public:
  SimtTypeConverter(MLIRContext *ctx, int64_t threads);
  int64_t threads;
};

/// Base for patterns that need the kernel state.
template <typename Op>
struct SimtPattern : OpConversionPattern<Op> {
  SimtPattern(const TypeConverter &tc, MLIRContext *ctx, SimtState &state)
      : OpConversionPattern<Op>(tc, ctx), state(state) {}
  SimtState &state;
};

// --- Small IR builders -----------------------------------------------------

Value constI32(OpBuilder &b, Location loc, int64_t v);
Value constI64(OpBuilder &b, Location loc, int64_t v);
/// The row-major element index of each of this thread's slots (i32).
SmallVector<Value> slotElementIndices(OpBuilder &b, Location loc,
                                      const SimtState &s, int64_t numElements);
/// Where a thread sits in an mma layout: lane = 4g + q within its warp, and
/// the first row and column of its warp's part of the tensor.
struct MmaThread {
  Value lane, g, q, rowBase, colBase;
};
MmaThread mmaThread(OpBuilder &b, Location loc, const SimtState &s, const MmaLayout &l);
/// The same for a tensor type in any layout (blocked or mma).
SmallVector<Value> slotElementIndices(OpBuilder &b, Location loc,
                                      const SimtState &s, RankedTensorType type);
/// True on the thread that owns its slots (false on replicas).
Value isOwner(OpBuilder &b, Location loc, const SimtState &s,
              int64_t numElements);
/// Coordinates (i32) of a row-major element index in `shape`.
SmallVector<Value> unravel(OpBuilder &b, Location loc, Value index,
                           ArrayRef<int64_t> shape);
/// Row-major index (i32) of coordinates in `shape`.
Value ravel(OpBuilder &b, Location loc, ArrayRef<Value> coords,
            ArrayRef<int64_t> shape);
/// Element `i` of a per-thread vector; the vector of scalars `elems`.
Value extractSlot(OpBuilder &b, Location loc, Value vec, int64_t i);
Value buildVector(OpBuilder &b, Location loc, ArrayRef<Value> elems);

/// The shared-memory address `bytes` (i32) past `base` (!llvm.ptr<3>).
Value smemByteAddress(OpBuilder &b, Location loc, Value base, Value bytes);
/// Shared memory: element `index` (i32) of an array of `elem` at byte
/// `offset`. i1 is kept as i8.
Value smemLoad(OpBuilder &b, Location loc, SimtState &s, Type elem,
               int64_t offset, Value index);
void smemStore(OpBuilder &b, Location loc, SimtState &s, int64_t offset,
               Value index, Value value);
/// Bytes an element takes in shared memory.
int64_t smemElementBytes(Type elem);
/// Writes a whole distributed tensor (each element at its row-major index)
/// to shared memory at `offset`; a barrier comes before and after, so the
/// caller may read any element right away. Returns the bytes used.
int64_t smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                        int64_t offset, Value perThread, int64_t numElements);
/// The same for a tensor in any layout (blocked or mma).
int64_t smemWriteTensor(OpBuilder &b, Location loc, SimtState &s,
                        int64_t offset, Value perThread, RankedTensorType type);
void barrier(OpBuilder &b, Location loc);
/// Notes that the kernel uses `bytes` of shared memory.
void reserveSmem(SimtState &s, int64_t bytes);

/// Runs a reduce/scan combiner region on scalars: `acc` then `x` operands.
SmallVector<Value> combine(OpBuilder &b, Location loc, Region &region,
                           ValueRange acc, ValueRange x);

/// The dot on tensor cores (mma.sync) for a result in the mma layout.
FailureOr<Value> lowerDotToMma(OpBuilder &b, tt::DotOp op, Value a, Value bOperand,
                               Value c, SimtState &state);
/// The dot on Hopper's warpgroup MMA (wgmma) for a result in the wgmma
/// layout.
FailureOr<Value> lowerDotToWgmma(OpBuilder &b, tt::DotOp op, Value a, Value bOperand,
                                 Value c, SimtState &state);

/// Patterns for the ops that move elements between threads (broadcast,
/// trans, join, reduce, scan, dot).
void populateSimtDataMovementPatterns(const TypeConverter &tc,
                                      RewritePatternSet &patterns,
                                      SimtState &state);

} // namespace mlir::pallas::cuda

#endif
