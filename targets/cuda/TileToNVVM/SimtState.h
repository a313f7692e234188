//===- SimtState.h - what the NVVM conversion knows of a kernel -*- C++ -*-===//
//
// The per-kernel state the conversion's patterns share: the thread count
// and indices, what was learnt of the tile IR before it was rewritten
// (access analysis, copy steps), and where shared memory holds the rings,
// slot barriers and scratch area.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TARGETS_CUDA_TILETONVVM_SIMTSTATE_H
#define PALLAS_TARGETS_CUDA_TILETONVVM_SIMTSTATE_H

#include "Analysis/AxisInfo.h"
#include "Dialect/SharedLayouts.h"
#include "pallas/Gpu/Gpu.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::pallas::cuda {

/// Where a ring (pallas_gpu.alloc_ring) lives in shared memory.
struct RingPlacement {
  int64_t offset = 0; ///< from the start of the rings' area
  /// How a buffer holds its tile: as the dot that reads it wants
  /// (`layout.bytes` apart).
  OperandSmemLayout layout;
  /// Whether wgmma reads it (through the async proxy).
  bool feedsWgmma = false;
  /// Whether it takes memory a ring read earlier had (a barrier at its
  /// allocation lets every thread finish with that one first).
  bool reusesMemory = false;
};

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
  /// Warpgroups each running the function on `threads` threads of their
  /// own (pallas_gpu.warpgroups: a plgpu kernel's Pallas threads); `tid` is
  /// then the index within the warpgroup, `warpgroup` (i32, warp-uniform)
  /// which one, and each has a scratch area of its own, `scratchStride`
  /// bytes apart (an i32 constant set once the conversion knows the area's
  /// size).
  int64_t warpgroups = 1;
  Value warpgroup;
  Operation *scratchStride = nullptr;
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
  /// The mbarrier arrays (by their pallas_gpu.alloc_mbarriers op): their
  /// byte offset in the rings' area.
  llvm::DenseMap<Operation *, int64_t> mbarriers;
  /// Rings (their alloc ops) some copy into which is made of plain loads
  /// and stores rather than cp.async (nothing known of its addresses).
  llvm::DenseSet<Operation *> ringsCopiedByStores;
  int64_t ringBytes = 0;
  bool scratchAfterRings = false;
  /// Where the scratch area follows the rings because some op uses it
  /// while a ring is live: the ops that use it where none is (before the
  /// rings' first copies, after their last reads) and the area they share
  /// instead, at the start of shared memory over the rings (`ringBase`,
  /// `smemOverRingsBytes` of it used). Empty where every op uses the one
  /// area (chooseScratchAreas says when).
  llvm::DenseSet<Operation *> scratchOverRings;
  int64_t smemOverRingsBytes = 0;
  /// The area reserveSmem counts bytes in: the scratch area, or the one
  /// ScratchArea switched to.
  enum class Area { scratch, overRings, tmaStores, warpgroupCopies } reserving = Area::scratch;
  int64_t &reservedBytes() {
    return reserving == Area::overRings         ? smemOverRingsBytes
           : reserving == Area::tmaStores       ? tmaStoreBytes
           : reserving == Area::warpgroupCopies ? warpgroupCopyBytes
                                                : smemBytes;
  }
  /// Whether a thread's slot addresses in shared memory are one computed in
  /// full per class the layout repeats with plus constants
  /// (OperandSmemLayout::slotAddresses). Off in kernels with wgmma dots:
  /// there the attention at D = 64 ran 4 % slower (same registers, fewer
  /// instructions), GEMMs unchanged.
  bool shiftedAddresses = true;
  /// Whether a TMA store's wait for its reads of shared memory moves to
  /// where the scratch area is written next (the next TMA store, or any
  /// other op that may write scratch after it) and the kernel's end: where
  /// scratch overlaps no ring.
  bool deferTmaStoreWait = false;
  /// Whether TMA stores write their tiles into an area of their own
  /// (`tmaStoreSmem`, `tmaStoreBytes` of it used), after everything else
  /// (its offset from `ringBase` set once the kernel is converted): then
  /// only the next TMA store waits for a store's reads of shared memory.
  bool tmaStoreArea = false;
  Value tmaStoreSmem;
  Operation *tmaStoreAreaOffset = nullptr;
  int64_t tmaStoreBytes = 0;
  /// Whether broadcasts of a source every warpgroup holds whole
  /// (broadcastsWithinWarpgroups) go through an area of shared memory per
  /// warpgroup, after everything else, between barriers of the
  /// warpgroup's threads alone: `warpgroupCopySmem` is this thread's
  /// warpgroup's, `warpgroupCopyBytes` of it used; the area's offset and
  /// the stride between warpgroups are set once the kernel is converted.
  bool warpgroupCopies = false;
  Value warpgroupCopySmem;
  Operation *warpgroupCopyOffset = nullptr;
  Operation *warpgroupCopyStride = nullptr;
  int64_t warpgroupCopyBytes = 0;
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

/// Whether `op` is a broadcast (tt.broadcast) through shared memory of a
/// source in a blocked layout that every warpgroup of `threads` (several)
/// holds whole, its replicas a warpgroup apart: attention backward's lse
/// and delta rows, 128 values on two warpgroups, broadcast along the
/// columns of the transposed scores. Each warpgroup can exchange its own
/// copy, meeting only its own threads; through the CTA's scratch area,
/// every such exchange held both warpgroups in step (four CTA barriers an
/// iteration: 4.5 % of the time of attention backward at D = 64 on
/// 128-row blocks).
bool broadcastsWithinWarpgroups(Operation *op, int64_t threads);

/// While a pattern lowers `op`: `state.smem` is the scratch area `op` uses
/// (the one over the rings where `op` is in `state.scratchOverRings`; a
/// TMA store's own where they have one, `state.tmaStoreArea`; its
/// warpgroup's for a broadcast within warpgroups, `state.warpgroupCopies`),
/// and reserveSmem counts that area's bytes.
class ScratchArea {
public:
  ScratchArea(SimtState &state, Operation *op) : state(state), saved(state.smem) {
    if (state.warpgroupCopies && broadcastsWithinWarpgroups(op, state.threads)) {
      state.smem = state.warpgroupCopySmem;
      state.reserving = SimtState::Area::warpgroupCopies;
    } else if (state.tmaStoreArea && isa<pgpu::TmaStoreOp>(op)) {
      state.smem = state.tmaStoreSmem;
      state.reserving = SimtState::Area::tmaStores;
    } else if (state.scratchOverRings.contains(op)) {
      state.smem = state.ringBase;
      state.reserving = SimtState::Area::overRings;
    }
  }
  ~ScratchArea() {
    state.smem = saved;
    state.reserving = SimtState::Area::scratch;
  }
  ScratchArea(const ScratchArea &) = delete;
  ScratchArea &operator=(const ScratchArea &) = delete;

private:
  SimtState &state;
  Value saved;
};

} // namespace mlir::pallas::cuda

#endif
