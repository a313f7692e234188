//===- SimtLowering.h - tile IR to per-thread code, shared pieces -*- C++ -*-===//
//
// convert-tile-to-nvvm turns the tile-level IR (the `tt` subset, one
// program per CTA) into code that each thread of the CTA runs. A tensor of
// N elements is spread over the T threads by the *blocked* layout below and
// becomes, per thread, one `vector<R x T>` value; ops that move elements
// between threads go through shared memory, reductions through warp
// shuffles.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_SIMTLOWERING_H
#define PALLAS_TARGETS_CUDA_SIMTLOWERING_H

#include "Analysis/AxisInfo.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "pallas/Dialect/Pallas.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Passes/ExpandF8Conversions.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::pallas::cuda {

/// Whether lowering `op` exchanges values through shared memory (else each
/// thread has or recomputes what it needs).
bool broadcastUsesScratch(tt::BroadcastOp op);
bool layoutCastUsesScratch(tensor::CastOp op);

/// The coordinates (i32) in a tensor's shape of each of this thread's
/// slots. Where the layout allows (no slot's offset carries into the next
/// dimension), the thread's first element is unravelled once (`origin`)
/// and each slot is it shifted by constants (`shifts`); else each slot's
/// index is unravelled and `origin` is empty.
struct SlotCoordinates {
  SmallVector<SmallVector<Value>> coords;
  SmallVector<Value> origin;
  SmallVector<SmallVector<int64_t>> shifts;
  size_t size() const { return coords.size(); }
  ArrayRef<Value> operator[](size_t i) const { return coords[i]; }
  auto begin() const { return coords.begin(); }
  auto end() const { return coords.end(); }
};

/// Where a ring (pallas_gpu.alloc_ring) lives in shared memory.
struct RingPlacement {
  int64_t offset = 0; ///< from the start of the rings' area
  /// How a buffer holds its tile: as the dot that reads it wants
  /// (`layout.bytes` apart).
  OperandSmemLayout layout;
  /// Whether wgmma reads it (through the async proxy).
  bool feedsWgmma = false;
};

/// The elements one cp.async of `copy` moves, or 0 where its addresses are
/// not known to allow any (contiguous and aligned 4-, 8- or 16-byte pieces
/// under one mask bit, within a row): then the copy is made of plain loads
/// and stores, an element at a time.
struct SimtState;
int64_t cpAsyncPiece(pgpu::AsyncCopyOp copy, const SimtState &s);

/// Per-kernel state shared by the patterns.
struct SimtState {
  /// For each tensor load and store (computed before the conversion starts,
  /// while the tile IR is whole): its pointers' contiguity and alignment and
  /// its mask's constancy (AxisInfo.h).
  llvm::DenseMap<Operation *, std::pair<AxisInfo, AxisInfo>> access;
  /// For each pallas_gpu.async_copy whose pointers step by a constant from
  /// row to row: that step, in elements (rowStep).
  llvm::DenseMap<Operation *, int64_t> copyRowStep;
  int64_t threads = 128;
  /// The thread index (i32), defined at the kernel entry, in
  /// [0, threads): with a producer warpgroup (pallas_gpu.produce), its
  /// threads' indices wrap around (a producer thread computes as
  /// thread tid - threads would).
  Value tid;
  /// The CTA's own thread index: from `threads` on, the producer's.
  Value ctaTid;
  /// The producer warpgroup's threads (0 without one).
  int64_t producerThreads = 0;
  /// Under a program order (ProgramGrid.h): each axis's program id (i32),
  /// derived at the kernel entry from the linear block index. Empty
  /// otherwise: program ids are block ids.
  SmallVector<Value, 3> programIds;
  /// Where ops that exchange values through shared memory put them
  /// (!llvm.ptr<3>, defined at the entry): the scratch area, at the start
  /// or, when used while rings are live, right after the rings.
  Value smem;
  /// The largest shared-memory footprint any op needs there, in bytes.
  int64_t smemBytes = 0;
  /// The start of dynamic shared memory, where the rings are.
  Value ringBase;
  /// The rings (by their pallas_gpu.alloc_ring op) and the bytes they take.
  llvm::DenseMap<Operation *, RingPlacement> rings;
  /// The slot barriers (by their pallas_gpu.alloc_slot_barriers op): their
  /// byte offset in the rings' area.
  llvm::DenseMap<Operation *, int64_t> slotBarriers;
  /// Rings (their alloc ops) some copy into which is made of plain loads
  /// and stores rather than cp.async (nothing known of its addresses).
  llvm::DenseSet<Operation *> ringsCopiedByStores;
  int64_t ringBytes = 0;
  bool scratchAfterRings = false;
  /// Whether a thread's slot addresses in shared memory are one computed in
  /// full per class the layout repeats with plus constants
  /// (OperandSmemLayout::slotAddresses). Off in kernels with wgmma dots:
  /// there the attention at D = 64 ran 4 % slower (same registers, fewer
  /// instructions), GEMMs unchanged.
  bool shiftedAddresses = true;
  /// Whether a TMA store's wait for its reads of shared memory moves to
  /// where the scratch area is written next (the next TMA store) and the
  /// kernel's end: where TMA stores are the only users of scratch, and
  /// scratch overlaps no ring.
  bool deferTmaStoreWait = false;
  /// CTAs per thread-block cluster (pallas_gpu.cluster; 1: no clusters).
  int64_t cluster = 1;
  /// The slot barriers (their alloc ops) that multicast copies signal:
  /// their slots are released to every CTA of the cluster.
  llvm::DenseSet<Operation *> clusterSlotBarriers;
  /// The CTAs whose consumers release the slots of the slot barriers
  /// `alloc` makes: the cluster's where multicast copies fill them, else 1.
  int64_t releasingCtas(Operation *alloc) const {
    return clusterSlotBarriers.contains(alloc) ? cluster : 1;
  }
  /// The kernel's tensor maps (pallas_gpu.tensor_maps) and, for each, its
  /// parameter (a generic pointer to the __grid_constant__ CUtensorMap).
  SmallVector<pgpu::TensorMapAttr> tensorMaps;
  SmallVector<Value> tensorMapParams;
  /// Each kernel parameter's address (i64), for the pointer parameters.
  SmallVector<Value> paramAddresses;
  /// Per kernel parameter: its value where it is an integer (a symbolic
  /// size), else null.
  SmallVector<Value> paramValues;
  /// The pallas_gpu.tma_copy ops in a loop that leaves a dot in flight
  /// across iterations: issued by predicates rather than a branch.
  llvm::DenseSet<Operation *> predicatedCopies;
  /// Where the scratch area starts when it follows the rings (on 1024
  /// bytes, where swizzled operands must start).
  int64_t scratchOffset() const { return (ringBytes + 1023) / 1024 * 1024; }
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
/// The coordinates of this thread's slots of a tensor of `type`.
SlotCoordinates slotCoordinates(OpBuilder &b, Location loc, const SimtState &s,
                                RankedTensorType type);
/// The same for a tensor of `shape` in the blocked layout (any encoding).
SlotCoordinates slotCoordinates(OpBuilder &b, Location loc, const SimtState &s,
                                ArrayRef<int64_t> shape);
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
/// Inline PTX `text` with side effects (kept in place and order) on
/// `operands` under `constraints`; its result of `resultType`, or null
/// when that is null.
Value inlinePtx(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                StringRef text, StringRef constraints);
/// Shared memory: element `index` (i32) of an array of `elem` at byte
/// `offset`. i1 is kept as i8.
Value smemLoad(OpBuilder &b, Location loc, SimtState &s, Type elem,
               int64_t offset, Value index);
void smemStore(OpBuilder &b, Location loc, SimtState &s, int64_t offset,
               Value index, Value value);
/// The type registers and memory hold an element of type `elem` in: f8 as
/// i8 (LLVM has no 8-bit floats), others as themselves.
Type storageType(Type elem);
/// Writes a whole distributed tensor (each element at its row-major index)
/// to shared memory at `offset`; a barrier comes before and after, so the
/// caller may read any element right away. Returns the bytes used.
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
void barrier(OpBuilder &b, Location loc);
/// Every thread of every CTA of the cluster meets (barrier.cluster arrive
/// with release, wait with acquire semantics).
void clusterBarrier(OpBuilder &b, Location loc);
/// Warpgroup turns (pallas_gpu.turns_begin): warpgroup g's turn is named
/// barrier 1 + g, between it (waiting) and warpgroup g - 1 (passing the
/// turn on). takeTurn waits for this thread's warpgroup's turn, passTurn
/// hands it to the next warpgroup.
void takeTurn(OpBuilder &b, Location loc, const SimtState &s);
void passTurn(OpBuilder &b, Location loc, const SimtState &s);
/// Notes that the kernel uses `bytes` of shared memory.
void reserveSmem(SimtState &s, int64_t bytes);

/// Runs a reduce/scan combiner region on scalars: `acc` then `x` operands.
SmallVector<Value> combine(OpBuilder &b, Location loc, Region &region,
                           ValueRange acc, ValueRange x);

// --- Dot operands in shared memory -----------------------------------------

/// Writes a tensor held in the blocked layout into shared memory at
/// `base` (!llvm.ptr<3>) in `layout`, a vector store per chunk. The caller
/// places barriers.
void writeOperand(OpBuilder &b, Location loc, SimtState &s, Value base, Value perThread,
                  RankedTensorType type, const OperandSmemLayout &layout);
/// Writes a tensor-core accumulator (swizzlableAccumulator) into the scratch area of shared memory, laid out
/// with the 128-byte swizzle (as the TMA reads a box of 128-byte columns),
/// one store per pair of adjacent columns, after a CTA barrier (the area's
/// previous readers are done); the layout written. The caller places the
/// barrier after.
OperandSmemLayout writeAccumulatorSwizzled(OpBuilder &b, Location loc, SimtState &s,
                                           Value perThread, RankedTensorType src);
/// An operand as a dot lowering gets it: in registers (blocked layout),
/// or, when pallas-stage-loads staged it, already in shared memory at `smem`
/// in dotOperandLayout's layout.
struct DotOperand {
  Value regs;
  Value smem;
  /// The tile `regs` and `smem` hold; for B given K-major (`kMajor`, see
  /// kMajorB) it is [N, K], the transpose of the dot's B.
  RankedTensorType tile;
  bool kMajor = false;
  /// A held in the registers of the dot's own accumulator layout
  /// (registerA): the dot reads it from there, nothing goes through shared
  /// memory.
  bool inAccumulatorLayout = false;
};

/// The value in a tensor-core layout a dot's A is cast from, when the dot
/// can take A from registers as it is (bf16/f16 in the dot's own layout:
/// wgmma's accumulator layout of m64nK is the A fragment layout of m64k16
/// steps; with whole rows per warp, mma.sync's accumulators of two m16n8
/// tiles side by side are the A fragment of one m16k16 step); null
/// otherwise.
Value registerA(tt::DotOp dot);

/// Where a dot's operands are in shared memory: staged ones where they
/// are, the others written to the scratch area (A, then B) in their layouts
/// between two barriers (readers of the previous contents are done; every
/// element is written). `asyncProxy` (wgmma): B starts on 1024 bytes and a
/// proxy fence orders the writes before reads through the async proxy.
std::pair<Value, Value> placeDotOperands(OpBuilder &b, Location loc, SimtState &s,
                                         DotOperand a, DotOperand bOperand,
                                         const OperandSmemLayout &aLayout,
                                         const OperandSmemLayout &bLayout, bool asyncProxy);

/// The dot on tensor cores (mma.sync) for a result in the mma layout.
FailureOr<Value> lowerDotToMma(OpBuilder &b, tt::DotOp op, DotOperand a, DotOperand bOperand,
                               Value c, SimtState &state);
/// The dot on Hopper's warpgroup MMA (wgmma) for a result in the wgmma
/// layout.
FailureOr<Value> lowerDotToWgmma(OpBuilder &b, tt::DotOp op, DotOperand a, DotOperand bOperand,
                                 Value c, SimtState &state);

/// pallas_gpu.dot_wait (WgmmaLowering.cpp).
void populateWgmmaPatterns(const TypeConverter &tc, RewritePatternSet &patterns, SimtState &state);
/// Patterns for the pallas_gpu ring ops (alloc_ring, async_copy,
/// async_commit, async_wait, ring_read); rings become their i32 offset.
void populateRingPatterns(const TypeConverter &tc, RewritePatternSet &patterns, SimtState &state);
/// The staged operand `v` of a dot (a pallas_gpu.ring_read result): where
/// its buffer is; null when `v` is not staged.
Value stagedOperandAddress(ConversionPatternRewriter &rw, Location loc, Value v,
                           const SimtState &state);

/// Patterns for the ops that move elements between threads (broadcast,
/// trans, join, reduce, scan, dot).
void populateSimtDataMovementPatterns(const TypeConverter &tc,
                                      RewritePatternSet &patterns,
                                      SimtState &state);

} // namespace mlir::pallas::cuda

#endif
