//===- ConvertPlgpuToTile.cpp - plgpu kernels to tile IR, as scheduled ----===//
//
// convert-plgpu-to-tile: a Pallas:MGPU kernel becomes tile IR whose memory
// traffic is the kernel's own. Each shared-memory buffer is a ring of
// tiles (its leading dims are slots: `buf.at[slot]` picks one), swizzled
// as wgmma reads them or, where no wgmma does, dense rows if need be,
// each barrier array mbarriers, copies TMA copies that signal them, and
// the kernel's waits stay where it wrote them: a barrier_wait waits for
// the phase parity the thread tracks (one bit per barrier, carried through
// loops like scratch), a wgmma is a dot issued without waiting whose
// accumulator a wgmma_wait takes back. Everything else (arith, scf, loads
// and stores of arrays, reductions) lowers as convert-pallas-to-tile
// lowers it (TileLowering).
//
// Each Pallas thread is a warpgroup of the CTA (`pallas_gpu.warpgroups`),
// which runs the function with its own threads; a copy's issue waits for
// all of the warpgroup's threads (JAX's barrier before a copy), and one of
// them issues.
//
//===----------------------------------------------------------------------===//
#include "Analysis/AxisInfo.h"
#include "Transforms/PlgpuUserSchedule.h"
#include "Transforms/StageLoads.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Dialect/Indexers.h"
#include "pallas/Mgpu/Mgpu.h"
#include "pallas/Passes/KernelWalker.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"
#include "pallas/Tile/TileLowering.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_CONVERTPLGPUTOTILE
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

/// Barriers per array: each thread's phase bits are one i32.
constexpr int64_t kMaxBarriers = 32;

bool isSmem(Type t) {
  auto ref = dyn_cast<RefType>(t);
  return ref && ref.getMemorySpace() == MemorySpace::smem;
}

/// Whether an access names the whole ref (`[...]` or `:` on every dim).
bool isWholeAccess(ArrayRef<int64_t> encoded, int64_t rank) {
  IndexerList list = IndexerList::decode(encoded);
  if (list.isWhole())
    return true;
  return llvm::all_of(list.expandedFor(rank).get(),
                      [](const Indexer &i) { return i.kind == IndexerKind::Full; });
}

/// Whether indexers (expanded to the ref's rank) pick one slot of a
/// buffer of slots: an index per leading dim, then `:, :`.
bool isSlotPick(const IndexerList &list, int64_t rank) {
  if (rank < 3)
    return false;
  ArrayRef<Indexer> i = list.get();
  for (int64_t d = 0; d < rank - 2; ++d)
    if (i[d].kind != IndexerKind::Scalar && i[d].kind != IndexerKind::ScalarConst)
      return false;
  return i[rank - 2].kind == IndexerKind::Full && i[rank - 1].kind == IndexerKind::Full;
}

/// Whether indexers (expanded to rank 2) take whole 128-byte columns of a
/// tile of `bits`-bit elements: `[:, ds(start, n)]` (a constant start on a
/// column boundary; a value is trusted to be one, as JAX does).
bool isColumnSlice(const IndexerList &list, int64_t bits) {
  ArrayRef<Indexer> i = list.get();
  if (i.size() != 2 || i[0].kind != IndexerKind::Full)
    return false;
  int64_t atom = 1024 / bits;
  return (i[1].kind == IndexerKind::Slice || i[1].kind == IndexerKind::SliceConst) &&
         i[1].stride == 1 && i[1].size % atom == 0 &&
         (i[1].kind == IndexerKind::Slice || i[1].start % atom == 0);
}

/// Whether a load or store of SMEM ref `ref` names one whole tile: all
/// of a tile, or one slot of a buffer of slots.
bool namesOneTile(ArrayRef<int64_t> encoded, RefType ref) {
  return isWholeAccess(encoded, ref.getRank()) ||
         isSlotPick(IndexerList::decode(encoded).expandedFor(ref.getRank()), ref.getRank());
}

/// Whether indexers (expanded to rank 2) take whole rows of a tile from
/// some row on: `[ds(start, n), :]`.
bool isRowSlice(const IndexerList &list) {
  ArrayRef<Indexer> i = list.get();
  return i.size() == 2 && i[1].kind == IndexerKind::Full &&
         (i[0].kind == IndexerKind::Slice || i[0].kind == IndexerKind::SliceConst) &&
         i[0].stride == 1;
}

/// Whether indexers (expanded to rank 2) pick one row: `[i, :]`.
bool isRowPick(const IndexerList &list) {
  ArrayRef<Indexer> i = list.get();
  return i.size() == 2 &&
         (i[0].kind == IndexerKind::Scalar || i[0].kind == IndexerKind::ScalarConst) &&
         i[1].kind == IndexerKind::Full;
}

/// Whether scoped SMEM buffer `buffer` is a buffer of rows: rank 2, and
/// the kernel only ever picks one row of it (`buf[i, :]`: loads, stores,
/// and slices it copies to or from GMEM or loads and stores whole) — the
/// [warpgroups, rows] buffers of row statistics JAX's attention kernels
/// share with the TMA. Each row is then a slot of its own: a [1, n] tile.
bool isRowBuffer(Value buffer) {
  auto ref = dyn_cast<RefType>(buffer.getType());
  if (!ref || ref.getMemorySpace() != MemorySpace::smem || ref.getRank() != 2 ||
      buffer.use_empty())
    return false;
  auto picksRow = [](ArrayRef<int64_t> encoded) {
    return isRowPick(IndexerList::decode(encoded).expandedFor(2));
  };
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (auto load = dyn_cast<LoadOp>(user))
      return !load.getMask() && picksRow(load.getIndexers());
    if (auto store = dyn_cast<StoreOp>(user))
      return !store.getMask() && store.getRef() == buffer && picksRow(store.getIndexers());
    auto slice = dyn_cast<RefSliceOp>(user);
    if (!slice || !picksRow(slice.getIndexers()))
      return false;
    return llvm::all_of(slice->getUsers(), [&](Operation *use) {
      if (auto load = dyn_cast<LoadOp>(use))
        return !load.getMask() && isWholeAccess(load.getIndexers(), 1);
      if (auto store = dyn_cast<StoreOp>(use))
        return !store.getMask() && store.getRef() == slice.getResult() &&
               isWholeAccess(store.getIndexers(), 1);
      if (auto copy = dyn_cast<plgpu::CopyGmemToSmemOp>(use))
        return copy.getDst() == slice.getResult();
      if (auto copy = dyn_cast<plgpu::CopySmemToGmemOp>(use))
        return copy.getSrc() == slice.getResult();
      return false;
    });
  });
}

/// The kernel's scoped buffers of rows (isRowBuffer).
llvm::DenseSet<Value> rowBuffersOf(KernelOp kernel) {
  llvm::DenseSet<Value> rows;
  kernel.walk([&](RunScopedOp scoped) {
    for (BlockArgument a : scoped.getBody().front().getArguments())
      if (isRowBuffer(a))
        rows.insert(a);
  });
  return rows;
}

/// Why a buffer of rows of `ref`'s shape cannot be one, else empty: the
/// TMA copies each row as a box of at most 256 elements, into and out of
/// shared memory 128-byte aligned (each row a slot of its own).
std::string rowBufferGap(RefType ref) {
  int64_t bits = ref.getElementType().getIntOrFloatBitWidth();
  int64_t cols = ref.getShape().back();
  if (bits % 8 || cols > 256 || cols * bits % 1024)
    return "SMEM buffers of rows of other than a multiple of 128 bytes of at most 256 elements";
  return "";
}

/// What a kernel does with each of its scoped SMEM buffers (through the
/// slices of it): which layout it can have.
struct SmemBufferUse {
  bool wgmmaReads = false, columnsTaken = false, rowsTaken = false;
};

/// The scoped buffer (a run_scoped argument) SMEM ref `ref` is a slice of.
Value bufferOfSlice(Value ref) {
  while (auto slice = ref.getDefiningOp<RefSliceOp>())
    ref = slice.getRef();
  return ref;
}

llvm::DenseMap<Value, SmemBufferUse> smemBufferUses(KernelOp kernel) {
  llvm::DenseMap<Value, SmemBufferUse> uses;
  kernel.walk([&](Operation *op) {
    if (auto mma = dyn_cast<plgpu::WgmmaOp>(op)) {
      for (Value v : {mma.getA(), mma.getB()})
        if (isSmem(v.getType()))
          uses[bufferOfSlice(v)].wgmmaReads = true;
    } else if (auto slice = dyn_cast<RefSliceOp>(op)) {
      auto ref = cast<RefType>(slice.getRef().getType());
      if (!isSmem(ref) || ref.getRank() != 2)
        return;
      IndexerList list = IndexerList::decode(slice.getIndexers()).expandedFor(2);
      if (isColumnSlice(list, ref.getElementType().getIntOrFloatBitWidth()))
        uses[bufferOfSlice(slice.getRef())].columnsTaken = true;
      else if (isRowSlice(list))
        uses[bufferOfSlice(slice.getRef())].rowsTaken = true;
    }
  });
  return uses;
}

/// The layout of a shared-memory buffer of `ref`'s shape ([slot dims...,]
/// rows, columns) used as `use` says, or why it cannot have one: the
/// 128-byte swizzle where a wgmma reads it (or columns of it are taken)
/// or where it fits (JAX's default for tiles a wgmma may read), the
/// 64-byte one for rows of 64 bytes the threads read (their fragments'
/// rows then fall in different banks), else dense rows (rows are sliced,
/// or of other widths), which the TMA copies without a swizzle.
FailureOr<pgpu::SharedLayoutKind> smemBufferKind(RefType ref, SmemBufferUse use,
                                                 std::string &why) {
  ArrayRef<int64_t> shape = ref.getShape();
  int64_t bits = ref.getElementType().getIntOrFloatBitWidth();
  if (shape.size() < 2) {
    why = "shared-memory buffers of rank below 2";
    return failure();
  }
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  bool swizzlable = bits % 8 == 0 && rows % 8 == 0 && rows <= 256 && cols * bits % 1024 == 0;
  if (use.wgmmaReads || use.columnsTaken) {
    if (!swizzlable) {
      why = "shared-memory tiles a wgmma reads of 8 to 256 rows (a multiple of 8) of a "
            "multiple of 128 bytes";
      return failure();
    }
    if (use.rowsTaken) {
      why = "row slices of a shared-memory tile a wgmma reads";
      return failure();
    }
    return pgpu::SharedLayoutKind::swizzle_128b;
  }
  if (swizzlable && !use.rowsTaken)
    return pgpu::SharedLayoutKind::swizzle_128b;
  if (bits % 8 == 0 && rows % 8 == 0 && rows <= 256 && cols * bits == 512 && !use.rowsTaken)
    return pgpu::SharedLayoutKind::swizzle_64b;
  if (bits % 8 || rows > 256 || cols > 256 || cols * bits % 128) {
    why = "shared-memory tiles of at most 256 rows of at most 256 elements, a multiple of 16 "
          "bytes";
    return failure();
  }
  return pgpu::SharedLayoutKind::row_major;
}

} // namespace

std::optional<UserScheduleGap> cuda::userScheduleGap(KernelOp kernel) {
  plgpu::MeshAttr mesh = plgpu::getMesh(kernel);
  if (!mesh)
    return UserScheduleGap{kernel, "a pallas_call kernel has no schedule of its own"};
  // Named barrier 0 is the CTA's, 1 + i warpgroup i's (of 16).
  if (mesh.getNumThreads() > 15)
    return UserScheduleGap{kernel, "more than 15 Pallas threads (warpgroups)"};
  bool threads = mesh.getNumThreads() > 1;
  StringRef threadName = mesh.getThreadName().getValue();
  // Clusters along the last cluster axis, launched as clusters of CUDA
  // blocks along x (launch axis 0: MeshAttr::launchGrid).
  if (mesh.getClusterSize() > 1) {
    ArrayRef<int64_t> cluster = mesh.getCluster();
    if (llvm::any_of(cluster.drop_back(), [](int64_t c) { return c > 1; }))
      return UserScheduleGap{kernel, "clusters along other than one axis (the last)"};
    if (cluster.front() > 8)
      return UserScheduleGap{kernel, "clusters of more than 8 blocks (CUDA's portable size)"};
    if (LaunchAttr launch = getLaunch(kernel); launch && programGridOf(launch).folded)
      return UserScheduleGap{kernel, "clusters in a grid that folds into one launch axis"};
  }
  std::optional<UserScheduleGap> gap;
  int64_t accRows = 0;
  llvm::DenseMap<Value, SmemBufferUse> smemUses = smemBufferUses(kernel);
  llvm::DenseSet<Value> rowBuffers = rowBuffersOf(kernel);
  auto refuse = [&](Operation *op, std::string why) {
    gap = UserScheduleGap{op, std::move(why)};
    return WalkResult::interrupt();
  };
  kernel.walk([&](Operation *op) -> WalkResult {
    if (auto scoped = dyn_cast<RunScopedOp>(op)) {
      // Several Pallas threads share a scope's SMEM and barriers when it
      // is collective over the thread axis; else each has its own (JAX
      // refuses those; so do we).
      auto axes = scoped->getAttrOfType<ArrayAttr>(plgpu::PlgpuDialect::kCollectiveAxesAttrName);
      bool shared = axes && llvm::any_of(axes, [&](Attribute a) {
                      return cast<StringAttr>(a).getValue() == threadName;
                    });
      // Its mbarriers are initialized behind a barrier of the whole CTA,
      // which every warpgroup must reach.
      bool hasBarriers = llvm::any_of(scoped.getBody().front().getArgumentTypes(),
                                      llvm::IsaPred<plgpu::BarrierType>);
      if (threads && hasBarriers && scoped->getParentOfType<scf::IfOp>())
        return refuse(op, "barriers scoped under a condition in a kernel of several Pallas "
                          "threads");
      for (BlockArgument a : scoped.getBody().front().getArguments()) {
        if (threads && !shared && !isa<RefType>(a.getType()))
          return refuse(op, "barriers scoped per Pallas thread (not collective over the "
                            "thread axis)");
        if (threads && !shared && isSmem(a.getType()))
          return refuse(op, "SMEM scoped per Pallas thread (not collective over the thread "
                            "axis)");
        if (auto bar = dyn_cast<plgpu::BarrierType>(a.getType())) {
          if (bar.getNumBarriers() > kMaxBarriers)
            return refuse(op, "arrays of more than 32 barriers");
          continue;
        }
        auto ref = dyn_cast<RefType>(a.getType());
        if (!ref || (ref.getMemorySpace() != MemorySpace::smem &&
                     ref.getMemorySpace() != MemorySpace::regs &&
                     ref.getMemorySpace() != MemorySpace::none) ||
            isa<SemaphoreType, DMASemaphoreType>(ref.getElementType()))
          return refuse(op, "scoped values other than SMEM buffers, barriers, accumulators "
                            "and values (run_state)");
        std::string why;
        if (rowBuffers.contains(a)) {
          if (std::string gap = rowBufferGap(ref); !gap.empty())
            return refuse(op, gap);
          continue;
        }
        if (ref.getMemorySpace() == MemorySpace::smem &&
            failed(smemBufferKind(ref, smemUses.lookup(a), why)))
          return refuse(op, why);
      }
      return WalkResult::advance();
    }
    if (auto slice = dyn_cast<RefSliceOp>(op)) {
      if (!isSmem(slice.getRef().getType()))
        return WalkResult::advance();
      auto ref = cast<RefType>(slice.getRef().getType());
      IndexerList list = IndexerList::decode(slice.getIndexers()).expandedFor(ref.getRank());
      if (isSlotPick(list, ref.getRank()))
        return WalkResult::advance();
      if (rowBuffers.contains(slice.getRef()))
        return WalkResult::advance();
      if (ref.getRank() == 2 && isColumnSlice(list, ref.getElementType().getIntOrFloatBitWidth()))
        return WalkResult::advance();
      // Rows of a tile, copied out with the TMA (ragged_dot's epilogue).
      if (ref.getRank() == 2 && isRowSlice(list) &&
          !slice.getRef().getDefiningOp<RefSliceOp>() &&
          llvm::all_of(slice->getUsers(), llvm::IsaPred<plgpu::CopySmemToGmemOp>))
        return WalkResult::advance();
      return refuse(op, "slices of SMEM buffers other than buf.at[slot], whole 128-byte "
                        "columns of a tile, rows of a tile that a TMA copy stores and "
                        "single rows of a buffer only ever taken by rows");
    }
    if (auto load = dyn_cast<LoadOp>(op)) {
      auto ref = cast<RefType>(load.getRef().getType());
      if (isSmem(ref) && !rowBuffers.contains(load.getRef()) &&
          (!namesOneTile(load.getIndexers(), ref) || load.getMask()))
        return refuse(op, "reads of part of an SMEM buffer");
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      auto ref = cast<RefType>(store.getRef().getType());
      if (isSmem(ref) && !rowBuffers.contains(store.getRef()) &&
          (!namesOneTile(store.getIndexers(), ref) || store.getMask()))
        return refuse(op, "writes of part of an SMEM buffer");
      return WalkResult::advance();
    }
    if (isa<SwapOp, AtomicRMWOp, AtomicCASOp, AsyncCopyOp>(op) &&
        llvm::any_of(op->getOperandTypes(), isSmem))
      return refuse(op, "this op on SMEM buffers");
    if (auto copy = dyn_cast<plgpu::CopyGmemToSmemOp>(op)) {
      if (!copy.getBarrier())
        return refuse(op, "copies into SMEM without a barrier");
      if (copy.getPartitioned())
        return refuse(op, "partitioned collective copies");
      return WalkResult::advance();
    }
    if (auto copy = dyn_cast<plgpu::CopySmemToGmemOp>(op)) {
      if (std::optional<StringRef> kind = copy.getReduction()) {
        Type elem = cast<RefType>(copy.getSrc().getType()).getElementType();
        if (!cuda::tmaReductionDataType(elem, *kind))
          return refuse(op, "reducing copies into GMEM other than add of f16, bf16, f32, "
                            "i32 or i64; min and max of f16, bf16 or i32; and, or and xor of "
                            "i32 or i64 (what the TMA reduces)");
      }
      return WalkResult::advance();
    }
    if (auto axis = dyn_cast<plgpu::AxisIndexOp>(op)) {
      auto which = mesh.lookupAxis(axis.getAxis());
      if (!which)
        return refuse(op, "unknown axes");
      return WalkResult::advance();
    }
    if (auto mma = dyn_cast<plgpu::WgmmaOp>(op)) {
      if (mma.getTransposeA() && (!isSmem(mma.getA().getType()) ||
                                  cast<RefType>(mma.getA().getType()).getElementType().getIntOrFloatBitWidth() != 16))
        return refuse(op, "wgmma with a transposed A other than a 16-bit tile in SMEM");
      auto acc = cast<RefType>(mma.getAcc().getType());
      if (!acc.getElementType().isF32())
        return refuse(op, "accumulators other than f32");
      int64_t rows = acc.getShape()[0];
      if (rows % 64 || rows > 256 || (accRows && rows != accRows))
        return refuse(op, "accumulators of other than 64, 128 or 256 rows, the same in every "
                          "wgmma");
      accRows = rows;
      return WalkResult::advance();
    }
    return WalkResult::advance();
  });
  return gap;
}

namespace {

/// A slot of an SMEM buffer: its ring and the slot (i32); for columns of
/// it, the first (i32) and the view's tile.
struct SmemSlot {
  Value ring, slot;
  Value col = {};
  RankedTensorType columns = {};
  /// Rows of it from `row` (i32) on, as many as the view has.
  Value row = {};
  /// A row of a buffer of rows: the ref is 1-D, the slot's tile [1, n].
  bool rowOfBuffer = false;
};

class UserScheduleLowering : public TileLowering {
public:
  UserScheduleLowering(KernelOp kernel, OpBuilder &b)
      : TileLowering(kernel, b, /*tritonDotLimits=*/false, /*logicalProgramIds=*/true) {}

  /// Lowers the kernel, then gives each TMA copy its tensor map.
  LogicalResult lowerKernel();

protected:
  LogicalResult lower(RunScopedOp op) override;
  LogicalResult lower(RefSliceOp op) override;
  LogicalResult lower(LoadOp op) override;
  LogicalResult lower(StoreOp op) override;
  LogicalResult lowerOtherOp(Operation *op) override;
  SmallVector<Value> scratchWrittenIn(Operation *op) override;

private:
  LogicalResult lowerPlgpu(Operation *op);
  /// The tile `ref` names; `columns`: also a column view of one; `rows`:
  /// also rows of one.
  FailureOr<SmemSlot> slotOf(Operation *op, Value ref, bool columns = false, bool rows = false);
  /// The slot (i32) indexers picking one tile of a buffer of slots name:
  /// their indices, row-major over its leading dims.
  Value linearSlot(RefType type, const IndexerList &list, ValueRange indices);
  /// The tile a load or store of SMEM ref `ref` names (`[...]`, or
  /// `[slot]` of a buffer of slots).
  FailureOr<SmemSlot> slotOfAccess(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                                   ValueRange indices);
  /// The tile of pointers of GMEM ref `ref` (a whole view) and the index
  /// (i32) of its first element in the array.
  FailureOr<std::pair<Value, Value>> window(Operation *op, Value ref);
  LogicalResult assignTensorMaps(tt::FuncOp fn);
  /// A thread's phase bits of a barrier array (i32, bit i barrier i's):
  /// the parity it waits for next on barrier `index`, and the bits once
  /// that phase completed.
  Value nextParity(Value bits, Value index) {
    return arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, index), i32(1));
  }
  Value afterPhase(Value bits, Value index) {
    return arith::XOrIOp::create(b, loc, bits, arith::ShLIOp::create(b, loc, i32(1), index));
  }

  /// How the kernel uses each SMEM buffer (its layout follows).
  llvm::DenseMap<Value, SmemBufferUse> smemUses = smemBufferUses(kernel);
  /// Rank-3 SMEM buffers: their ring (slots picked by ref_slice).
  llvm::DenseMap<Value, Value> slotted;
  /// Buffers of rows (isRowBuffer): their ring, a slot per row.
  llvm::DenseMap<Value, Value> rowBuffers;
  /// The slot of a buffer of rows indexers `[i, :]` pick.
  SmemSlot rowSlot(Value buffer, ArrayRef<int64_t> encoded, ValueRange indices) {
    IndexerList list = IndexerList::decode(encoded).expandedFor(2);
    const Indexer &row = list.get()[0];
    Value slot = row.kind == IndexerKind::Scalar ? toI32(values.lookup(indices[0]))
                                                 : i32(row.start);
    SmemSlot at{rowBuffers.lookup(buffer), slot};
    at.rowOfBuffer = true;
    return at;
  }
  /// A row's pointers (1-D) as the [1, n] window of its slot's tile.
  Value asRowWindow(Value ptrs) {
    auto t = cast<RankedTensorType>(ptrs.getType());
    return tt::ExpandDimsOp::create(
        b, loc, RankedTensorType::get({1, t.getDimSize(0)}, t.getElementType()), ptrs, 0);
  }
  /// SMEM refs naming one tile: a buffer of rank 2, or a slot.
  llvm::DenseMap<Value, SmemSlot> tiles;
  /// Barrier arrays: their mbarriers; `scratch` holds their phase bits.
  llvm::DenseMap<Value, Value> barriers;
  /// Barrier arrays only warpgroups arrive on: one arrival per warp.
  llvm::DenseSet<Value> arrivedPerWarp;
  /// The accumulators (regs refs) in scope, whose values `scratch` holds.
  SmallVector<Value> accumulators;
};

LogicalResult UserScheduleLowering::lower(RunScopedOp op) {
  Block &body = op.getBody().front();
  SmallVector<Value> scoped;
  for (BlockArgument a : body.getArguments()) {
    if (auto bar = dyn_cast<plgpu::BarrierType>(a.getType())) {
      // Barriers only warpgroups arrive on (no copy signals them) take an
      // arrival per warp: no warpgroup barrier before each.
      bool perWarp = llvm::any_of(a.getUsers(), llvm::IsaPred<plgpu::BarrierArriveOp>) &&
                     llvm::none_of(a.getUsers(), llvm::IsaPred<plgpu::CopyGmemToSmemOp>);
      if (perWarp)
        arrivedPerWarp.insert(a);
      // A cluster barrier: every CTA of the cluster arrives on each one's
      // (the own schedule takes clusters along one axis: all its CTAs).
      int64_t ctas = bar.getCollectiveAxes() ? plgpu::getMesh(kernel).getClusterSize() : 1;
      auto type = pgpu::MBarriersType::get(b.getContext(), bar.getNumBarriers(),
                                           bar.getNumArrivals() * (perWarp ? 4 : 1) * ctas,
                                           ctas);
      barriers[a] = pgpu::AllocMBarriersOp::create(b, loc, type);
      scratch[a] = i32(0);
      scoped.push_back(a);
      continue;
    }
    auto ref = cast<RefType>(a.getType());
    if (ref.getMemorySpace() == MemorySpace::none) {
      // A value run_state carries: held in registers, as scratch is.
      if (failed(checkRegisterShape(op, ref, "a scoped value")))
        return failure();
      scratch[a] = zeroedScratch(ref);
      scoped.push_back(a);
      continue;
    }
    if (ref.getMemorySpace() == MemorySpace::regs) {
      if (failed(checkRegisterShape(op, ref, "an accumulator")))
        return failure();
      // plgpu.ACC: zero on entry to its scope.
      scratch[a] = zeroedScratch(ref);
      accumulators.push_back(a);
      scoped.push_back(a);
      continue;
    }
    ArrayRef<int64_t> shape = ref.getShape();
    if (isRowBuffer(a)) {
      // A slot per row: [1, n] tiles of dense rows (the TMA's box).
      auto row = RankedTensorType::get(
          {1, shape[1]}, ref.getElementType(),
          pgpu::SharedEncodingAttr::get(b.getContext(), pgpu::SharedLayoutKind::row_major));
      rowBuffers[a] = pgpu::AllocRingOp::create(
          b, loc, pgpu::RingType::get(b.getContext(), shape[0], row));
      continue;
    }
    std::string why;
    FailureOr<pgpu::SharedLayoutKind> kind = smemBufferKind(ref, smemUses.lookup(a), why);
    if (failed(kind))
      return op->emitOpError("scopes an SMEM buffer the CUDA target cannot lay out: it takes ")
             << why;
    auto tile = RankedTensorType::get(shape.take_back(2), ref.getElementType(),
                                      pgpu::SharedEncodingAttr::get(b.getContext(), *kind));
    int64_t stages = 1;
    for (int64_t d : shape.drop_back(2))
      stages *= d;
    Value ring = pgpu::AllocRingOp::create(b, loc, pgpu::RingType::get(b.getContext(), stages, tile));
    if (shape.size() > 2)
      slotted[a] = ring;
    else
      tiles[a] = {ring, i32(0)};
  }
  if (failed(lowerRunScopedInPlace(op)))
    return failure();
  for (Value a : scoped) {
    scratch.erase(a);
    barriers.erase(a);
    llvm::erase(accumulators, a);
  }
  return success();
}

LogicalResult UserScheduleLowering::lower(RefSliceOp op) {
  if (!isSmem(op.getRef().getType()))
    return TileLowering::lower(op);
  auto type = cast<RefType>(op.getRef().getType());
  if (rowBuffers.count(op.getRef())) {
    tiles[op.getResult()] = rowSlot(op.getRef(), op.getIndexers(), op.getIndices());
    return success();
  }
  IndexerList list = IndexerList::decode(op.getIndexers()).expandedFor(type.getRank());
  if (auto tile = tiles.find(op.getRef()); tile != tiles.end() && type.getRank() == 2 &&
                                           isColumnSlice(list, type.getElementType().getIntOrFloatBitWidth())) {
    // Columns of a tile: an offset into it (of one).
    const Indexer &cols = list.get()[1];
    Value start = cols.kind == IndexerKind::Slice ? toI32(values.lookup(op.getIndices()[0]))
                                                  : i32(cols.start);
    SmemSlot view = tile->second;
    view.col = view.col ? (Value)arith::AddIOp::create(b, loc, view.col, start) : start;
    auto result = cast<RefType>(op.getResult().getType());
    view.columns = RankedTensorType::get(result.getShape(), result.getElementType());
    tiles[op.getResult()] = view;
    return success();
  }
  if (auto tile = tiles.find(op.getRef());
      tile != tiles.end() && type.getRank() == 2 && isRowSlice(list) && !tile->second.col &&
      !tile->second.row) {
    // Rows of a tile (of dense rows): a row offset into it.
    const Indexer &rows = list.get()[0];
    SmemSlot view = tile->second;
    view.row = rows.kind == IndexerKind::Slice ? toI32(values.lookup(op.getIndices()[0]))
                                               : i32(rows.start);
    tiles[op.getResult()] = view;
    return success();
  }
  FailureOr<SmemSlot> at = slotOfAccess(op, op.getRef(), op.getIndexers(), op.getIndices());
  if (failed(at))
    return failure();
  tiles[op.getResult()] = *at;
  return success();
}

Value UserScheduleLowering::linearSlot(RefType type, const IndexerList &list,
                                       ValueRange indices) {
  Value slot;
  unsigned next = 0;
  for (int64_t d = 0; d + 2 < type.getRank(); ++d) {
    const Indexer &i = list.get()[d];
    Value index = i.kind == IndexerKind::Scalar ? toI32(values.lookup(indices[next++]))
                                                : i32(i.start);
    slot = slot ? (Value)arith::AddIOp::create(
                      b, loc, arith::MulIOp::create(b, loc, slot, i32(type.getShape()[d])), index)
                : index;
  }
  return slot;
}

FailureOr<SmemSlot> UserScheduleLowering::slotOfAccess(Operation *op, Value ref,
                                                        ArrayRef<int64_t> encoded,
                                                        ValueRange indices) {
  auto type = cast<RefType>(ref.getType());
  if (rowBuffers.count(ref))
    return rowSlot(ref, encoded, indices);
  if (isWholeAccess(encoded, type.getRank()))
    return slotOf(op, ref, /*columns=*/isa<LoadOp>(op));
  auto it = slotted.find(ref);
  IndexerList list = IndexerList::decode(encoded).expandedFor(type.getRank());
  if (it == slotted.end() || !isSlotPick(list, type.getRank()))
    return op->emitOpError("accesses part of an SMEM buffer; the CUDA target takes one tile "
                           "(buf[...] or buf[slot])");
  return SmemSlot{it->second, linearSlot(type, list, indices)};
}

FailureOr<SmemSlot> UserScheduleLowering::slotOf(Operation *op, Value ref, bool columns,
                                                  bool rows) {
  auto it = tiles.find(ref);
  if (it == tiles.end())
    return op->emitOpError("uses an SMEM ref the CUDA target cannot trace to one tile of a "
                           "buffer (buf or buf.at[slot])");
  if (it->second.col && !columns)
    return op->emitOpError("copies or writes columns of an SMEM tile; the CUDA target reads "
                           "them only (wgmma operands, loads), so far");
  if (it->second.row && !rows)
    return op->emitOpError("uses rows of an SMEM tile; the CUDA target copies them out to "
                           "GMEM only, so far");
  return it->second;
}

LogicalResult UserScheduleLowering::lower(LoadOp op) {
  if (!isSmem(op.getRef().getType()))
    return TileLowering::lower(op);
  FailureOr<SmemSlot> at = slotOfAccess(op, op.getRef(), op.getIndexers(), op.getIndices());
  if (failed(at))
    return failure();
  if (at->rowOfBuffer) {
    // The [1, n] tile, read as the row it is.
    auto row = cast<RankedTensorType>(op.getResult().getType());
    auto tile = RankedTensorType::get({1, row.getDimSize(0)}, row.getElementType());
    Value read = pgpu::RingReadOp::create(b, loc, tile, at->ring, at->slot, Value());
    values.map(op.getResult(), tt::ReshapeOp::create(b, loc, row, read));
    return success();
  }
  values.map(op.getResult(), pgpu::RingReadOp::create(b, loc, op.getResult().getType(),
                                                      at->ring, at->slot, at->col));
  return success();
}

LogicalResult UserScheduleLowering::lower(StoreOp op) {
  if (!isSmem(op.getRef().getType()))
    return TileLowering::lower(op);
  FailureOr<SmemSlot> at = slotOfAccess(op, op.getRef(), op.getIndexers(), op.getIndices());
  if (failed(at))
    return failure();
  Value value = values.lookup(op.getValue());
  if (at->rowOfBuffer) {
    auto row = cast<RankedTensorType>(value.getType());
    value = tt::ReshapeOp::create(
        b, loc, RankedTensorType::get({1, row.getDimSize(0)}, row.getElementType()), value);
  }
  pgpu::RingWriteOp::create(b, loc, value, at->ring, at->slot);
  return success();
}

SmallVector<Value> UserScheduleLowering::scratchWrittenIn(Operation *op) {
  SmallVector<Value> written = TileLowering::scratchWrittenIn(op);
  auto add = [&](Value ref) {
    if (scratch.count(ref) && !llvm::is_contained(written, ref))
      written.push_back(ref);
  };
  op->walk([&](Operation *inner) {
    if (auto wait = dyn_cast<plgpu::BarrierWaitOp>(inner))
      add(wait.getBarrier());
    else if (auto mma = dyn_cast<plgpu::WgmmaOp>(inner))
      add(mma.getAcc());
    else if (isa<plgpu::WgmmaWaitOp>(inner))
      for (Value acc : accumulators)
        add(acc);
  });
  return written;
}

LogicalResult UserScheduleLowering::lowerOtherOp(Operation *op) {
  if (isa<plgpu::PlgpuDialect>(op->getDialect()))
    return lowerPlgpu(op);
  return TileLowering::lowerOtherOp(op);
}

FailureOr<std::pair<Value, Value>> UserScheduleLowering::window(Operation *op, Value ref) {
  Access a;
  if (failed(access(op, ref, /*encoded=*/{}, ValueRange(), a)))
    return failure();
  // The first element's index into the array, from the view's scalars (the
  // same in every thread, as the TMA wants its coordinates).
  const View &view = views[ref];
  if (!view.arraySizes.empty())
    return op->emitOpError("copies a window of an array of symbolic size; the CUDA target "
                           "takes static arrays in plgpu kernels");
  SmallVector<Value> index(view.fixed.begin(), view.fixed.end());
  for (const View::Dim &d : view.dims)
    index[d.arrayDim] = d.offset;
  Value origin;
  int64_t stride = 1;
  for (int64_t k = view.arrayShape.size() - 1; k >= 0; --k) {
    Value term = stride == 1 ? index[k] : (Value)arith::MulIOp::create(b, loc, index[k], i32(stride));
    origin = origin ? (Value)arith::AddIOp::create(b, loc, origin, term) : term;
    stride *= view.arrayShape[k];
  }
  return std::make_pair(a.ptrs, origin ? origin : i32(0));
}

LogicalResult UserScheduleLowering::lowerPlgpu(Operation *op) {
  // The barrier an op names and its index (i32; 0 without one).
  auto barrierOf = [&](Value bar, Value index) -> std::pair<Value, Value> {
    auto it = barriers.find(bar);
    Value i = index ? toI32(values.lookup(index)) : i32(0);
    return {it == barriers.end() ? Value() : it->second, i};
  };
  auto noBarrier = [&](Operation *op) {
    return op->emitOpError("uses a barrier the CUDA target cannot trace to its scope");
  };

  if (auto axis = dyn_cast<plgpu::AxisIndexOp>(op)) {
    auto which = plgpu::getMesh(kernel).lookupAxis(axis.getAxis());
    if (!which)
      return op->emitOpError("reads an axis the kernel's mesh does not have");
    Value id;
    // The program ids are the launch's (MeshAttr::launchGrid), as in the
    // in-order lowering: the grid index over the cluster's size, the
    // cluster index the remainder.
    plgpu::MeshAttr mesh = plgpu::getMesh(kernel);
    if (which->first != plgpu::MeshAttr::AxisKind::thread) {
      plgpu::MeshAttr::LaunchAxis at = mesh.launchAxisOf(which->first, which->second);
      Value pid = pids[at.axis];
      if (which->first == plgpu::MeshAttr::AxisKind::cluster)
        id = at.clusterSize == 1 ? i32(0)
                                 : (Value)arith::RemUIOp::create(b, loc, pid, i32(at.clusterSize));
      else
        id = at.clusterSize == 1 ? pid
                                 : (Value)arith::DivUIOp::create(b, loc, pid, i32(at.clusterSize));
    } else if (mesh.getNumThreads() > 1) {
      id = pgpu::WarpgroupIdOp::create(b, loc, b.getI32Type());
    } else {
      id = i32(0);
    }
    values.map(axis.getResult(), id);
    return success();
  }
  if (auto copy = dyn_cast<plgpu::CopyGmemToSmemOp>(op)) {
    FailureOr<SmemSlot> dst = slotOf(op, copy.getDst());
    auto src = window(op, copy.getSrc());
    if (failed(dst) || failed(src))
      return failure();
    auto [bars, index] = barrierOf(copy.getBarrier(), copy.getBarrierIndex());
    if (!bars)
      return noBarrier(op);
    Value ptrs = dst->rowOfBuffer ? asRowWindow(src->first) : src->first;
    // A collective copy: the cluster's CTAs (all of them along its one
    // axis) share one fetch.
    pgpu::TmaLoadOp::create(b, loc, ptrs, src->second, dst->ring, dst->slot, bars, index,
                            /*tensor_map=*/-1, /*multicast=*/bool(copy.getCollectiveAxes()));
    return success();
  }
  if (auto copy = dyn_cast<plgpu::CopySmemToGmemOp>(op)) {
    FailureOr<SmemSlot> src = slotOf(op, copy.getSrc(), /*columns=*/false, /*rows=*/true);
    auto dst = window(op, copy.getDst());
    if (failed(src) || failed(dst))
      return failure();
    Value ptrs = src->rowOfBuffer ? asRowWindow(dst->first) : dst->first;
    pgpu::TmaStoreBufferOp::create(b, loc, src->ring, src->slot, src->row, ptrs,
                                   dst->second, /*tensor_map=*/-1,
                                   copy.getReductionAttr());
    if (copy.getCommitGroup())
      pgpu::BulkCommitOp::create(b, loc);
    return success();
  }
  if (isa<plgpu::CommitGroupOp>(op)) {
    pgpu::BulkCommitOp::create(b, loc);
    return success();
  }
  if (auto wait = dyn_cast<plgpu::WaitSmemToGmemOp>(op)) {
    pgpu::BulkWaitOp::create(b, loc, wait.getPending(), wait.getReadOnly());
    return success();
  }
  if (isa<plgpu::CommitSmemOp>(op)) {
    pgpu::CommitSmemOp::create(b, loc);
    return success();
  }
  if (auto wait = dyn_cast<plgpu::BarrierWaitOp>(op)) {
    auto [bars, index] = barrierOf(wait.getBarrier(), wait.getIndex());
    if (!bars)
      return noBarrier(op);
    // The parity this thread waits for next on barrier `index` is bit
    // `index` of its phase bits, which flips once the wait returns.
    Value &bits = scratch[wait.getBarrier()];
    pgpu::MBarrierWaitOp::create(b, loc, bars, index, nextParity(bits, index));
    bits = afterPhase(bits, index);
    return success();
  }
  if (auto test = dyn_cast<plgpu::BarrierTestOp>(op)) {
    auto [bars, index] = barrierOf(test.getBarrier(), test.getIndex());
    if (!bars)
      return noBarrier(op);
    // As a wait that returns at once: where the phase completed, the
    // thread's next wait is for the phase after it (JAX's barrier.test).
    Value &bits = scratch[test.getBarrier()];
    Value done = pgpu::MBarrierTestOp::create(b, loc, b.getI1Type(), bars, index,
                                              nextParity(bits, index));
    bits = arith::SelectOp::create(b, loc, done, afterPhase(bits, index), bits);
    values.map(test.getCompleted(), done);
    return success();
  }
  if (auto arrive = dyn_cast<plgpu::BarrierArriveOp>(op)) {
    auto [bars, index] = barrierOf(arrive.getBarrier(), arrive.getIndex());
    if (!bars)
      return noBarrier(op);
    pgpu::MBarrierArriveOp::create(b, loc, bars, index,
                                   arrivedPerWarp.contains(arrive.getBarrier()));
    return success();
  }
  if (auto mma = dyn_cast<plgpu::WgmmaOp>(op)) {
    if (!scratch.count(mma.getAcc()))
      return op->emitOpError("accumulates into a ref the CUDA target cannot trace to a scoped "
                             "accumulator");
    auto transposed = [&](Value tile) -> Value {
      auto t = cast<RankedTensorType>(tile.getType());
      auto swapped = RankedTensorType::get({t.getDimSize(1), t.getDimSize(0)}, t.getElementType());
      return tt::TransOp::create(b, loc, swapped, tile, ArrayRef<int32_t>{1, 0});
    };
    auto tileOf = [](Value ref) {
      auto t = cast<RefType>(ref.getType());
      return RankedTensorType::get(t.getShape(), t.getElementType());
    };
    // A from SMEM, or a value in registers.
    Value lhs;
    if (isa<RefType>(mma.getA().getType())) {
      FailureOr<SmemSlot> a = slotOf(op, mma.getA(), /*columns=*/true);
      if (failed(a))
        return failure();
      lhs = pgpu::RingReadOp::create(b, loc, tileOf(mma.getA()), a->ring, a->slot, a->col);
      // A transposed: wgmma reads the [K, M] tile MN-major (mnMajorA).
      if (mma.getTransposeA())
        lhs = transposed(lhs);
    } else {
      lhs = values.lookup(mma.getA());
    }
    FailureOr<SmemSlot> bb = slotOf(op, mma.getB(), /*columns=*/true);
    if (failed(bb))
      return failure();
    Value rhs = pgpu::RingReadOp::create(b, loc, tileOf(mma.getB()), bb->ring, bb->slot, bb->col);
    if (mma.getTransposeB())
      rhs = transposed(rhs);
    Value &acc = scratch[mma.getAcc()];
    auto dot = tt::DotOp::create(b, loc, acc.getType(), lhs, rhs, acc, tt::InputPrecision::IEEE,
                                 /*maxNumImpreciseAcc=*/0);
    // Issued without waiting: the kernel's wgmma_wait takes it back.
    dot->setAttr(pgpu::kAsyncDotAttrName, b.getUnitAttr());
    acc = dot.getResult();
    return success();
  }
  if (auto wait = dyn_cast<plgpu::WgmmaWaitOp>(op)) {
    // Every accumulator in scope passes through the wait (one whose dots
    // are done passes through unchanged), so that nothing reads one
    // before its dots are.
    if (accumulators.empty())
      pgpu::DotWaitOp::create(b, loc, TypeRange(), ValueRange(), wait.getPending());
    for (Value ref : accumulators) {
      Value &acc = scratch[ref];
      acc = pgpu::DotWaitOp::create(b, loc, TypeRange{acc.getType()}, ValueRange{acc},
                                    wait.getPending())
                .getResult(0);
    }
    return success();
  }
  if (auto regs = dyn_cast<plgpu::SetMaxRegistersOp>(op)) {
    // One Pallas thread: no register budget to split.
    if (plgpu::getMesh(kernel).getNumThreads() > 1)
      pgpu::SetMaxRegistersOp::create(b, loc, regs.getCount(), regs.getIncrease());
    return success();
  }
  if (auto cast = dyn_cast<plgpu::LayoutCastOp>(op)) {
    values.map(cast.getResult(), values.lookup(cast.getInput()));
    return success();
  }
  return op->emitOpError("is not lowered for sm_90a with the kernel's own schedule yet");
}

/// Each TMA copy's tensor map: the array its pointers address, viewed as
/// rows of its last dimension, in boxes of the window's rows by 128 bytes
/// (swizzled tiles) or by the whole row (dense rows).
LogicalResult UserScheduleLowering::assignTensorMaps(tt::FuncOp fn) {
  AxisInfoAnalysis axis;
  auto assign = [&](Operation *op, Value ptrs, pgpu::RingType ring,
                    StringAttr reduce = {}) -> LogicalResult {
    // The box is the window (some rows of the tile, for a store of rows).
    RankedTensorType tile = ring.getTile();
    auto window = RankedTensorType::get(cast<RankedTensorType>(ptrs.getType()).getShape(),
                                        tile.getElementType(), tile.getEncoding());
    std::optional<pgpu::TensorMapAttr> map =
        tmaViewOfPointers(ptrs, window, axis, /*interiorRows=*/true);
    if (!map)
      return op->emitOpError("copies a GMEM window the TMA cannot address: it takes windows of "
                             "whole contiguous rows of the array's last dimension, a multiple "
                             "of 16 bytes apart, starting 16-byte aligned, of at most 256 rows");
    // A reducing store's map says what the elements are (the TMA adds
    // them as such).
    if (reduce) {
      std::optional<int64_t> type =
          cuda::tmaReductionDataType(tile.getElementType(), reduce.getValue());
      if (!type)
        return op->emitOpError("internal error: a TMA reduction of unsupported type");
      map = map->withDataType(*type);
    }
    op->setAttr("tensor_map", b.getI64IntegerAttr(tensorMapIndex(fn, *map)));
    return success();
  };
  WalkResult r = fn.walk([&](Operation *op) {
    if (auto load = dyn_cast<pgpu::TmaLoadOp>(op))
      return failed(assign(op, load.getPtr(), load.getRing().getType())) ? WalkResult::interrupt()
                                                                        : WalkResult::advance();
    if (auto store = dyn_cast<pgpu::TmaStoreBufferOp>(op))
      return failed(assign(op, store.getPtr(), store.getRing().getType(), store.getReduceAttr()))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

LogicalResult UserScheduleLowering::lowerKernel() {
  if (std::optional<UserScheduleGap> gap = userScheduleGap(kernel))
    return gap->op->emitOpError("is not lowered for sm_90a with the kernel's own schedule yet: ")
           << gap->reason;
  // One Pallas thread: one warpgroup.
  if (LaunchAttr launch = getLaunch(kernel))
    setLaunch(kernel, launch.withNumWarps(4));
  if (failed(run()))
    return failure();
  auto fn = dyn_cast_or_null<tt::FuncOp>(kernel->getPrevNode());
  if (!fn)
    return kernel.emitOpError("internal error: the lowered function is missing");
  if (int64_t threads = plgpu::getMesh(kernel).getNumThreads(); threads > 1)
    fn->setAttr(pgpu::kWarpgroupsAttrName, b.getI64IntegerAttr(threads));
  if (int64_t ctas = plgpu::getMesh(kernel).getClusterSize(); ctas > 1)
    fn->setAttr(pgpu::kClusterAttrName, b.getI64IntegerAttr(ctas));
  return assignTensorMaps(fn);
}

struct ConvertPlgpuToTilePass
    : pallas::impl::ConvertPlgpuToTileBase<ConvertPlgpuToTilePass> {
  void runOnOperation() override {
    if (failed(lowerExpandedKernels(getOperation(), "Triton", [&](KernelOp kernel) {
          OpBuilder b(kernel);
          return UserScheduleLowering(kernel, b).lowerKernel();
        })))
      return signalPassFailure();
  }
};

} // namespace
