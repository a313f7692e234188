//===- UserScheduleLowering.cpp - a kernel's own copies and barriers ------===//
//
// The ops of GpuUserScheduleOps.td in NVVM: mbarriers in shared memory
// after the rings, TMA copies into and out of ring buffers (one bulk
// tensor copy per 128-byte column of a swizzled tile, one for a tile of
// dense rows), the threads'
// writes of a tensor into a buffer, and the fences and bulk-group waits
// between them. One elected thread issues; its instructions are
// predicated rather than branched to, as they may stand between a wgmma
// and its wait (a branch there makes ptxas serialize the wgmma).
//
//===----------------------------------------------------------------------===//
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/PatternBase.h"
#include "TileToNVVM/Patterns.h"
#include "TileToNVVM/RingAccess.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"
#include "TileToNVVM/TypeConverter.h"
#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

/// The box coordinates (column, row; i32) of the tile whose first element
/// is array element `origin` (i32) in `m`'s view of the array as rows.
std::pair<Value, Value> boxAt(OpBuilder &b, Location loc, const KernelTensorMap &m, Value origin) {
  Value rowElements = constI32(b, loc, m.map.getRowElements());
  return {arith::RemUIOp::create(b, loc, origin, rowElements),
          arith::DivUIOp::create(b, loc, origin, rowElements)};
}

/// mbarrier `index` (i32) of the array at byte `offset` (i32).
Value mbarrierAddress(OpBuilder &b, Location loc, const SimtState &s, Value offset, Value index) {
  Value bytes =
      arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, index, constI32(b, loc, 8)));
  return smemByteAddress(b, loc, s.ringBase, bytes);
}

/// The one thread of the warpgroup that issues a copy: a lane elect.sync
/// picks in its first warp (the warp index read through a shuffle, so
/// that ptxas sees it warp-uniform). Issue predicated on it needs no loop
/// over the lanes' operands, as one predicated on the thread index does.
Value issuingThread(OpBuilder &b, Location loc, const SimtState &s) {
  Value warp = fromLaneZero(b, loc, arith::ShRUIOp::create(b, loc, s.tid, constI32(b, loc, 5)));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp, constI32(b, loc, 0));
  Value elected = NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
  return arith::AndIOp::create(b, loc, first, elected);
}

/// Thread 0 initializes each barrier for `arrivals` arrivals; the TMA
/// completes them through the async proxy, which must see the
/// initialization; everyone waits until it is done.
struct AllocMBarriersLowering : SimtPattern<pgpu::AllocMBarriersOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::AllocMBarriersOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto it = state.mbarriers.find(op);
    if (it == state.mbarriers.end())
      return op.emitError("internal error: mbarriers without a place in shared memory");
    Value offset = constI32(rw, loc, it->second);
    // (The CTA's thread 0: every warpgroup shares the barriers.)
    Value first =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, state.ctaTid, constI32(rw, loc, 0));
    for (int64_t i = 0; i < op.getType().getCount(); ++i)
      NVVM::MBarrierInitOp::create(rw, loc,
                                   mbarrierAddress(rw, loc, state, offset, constI32(rw, loc, i)),
                                   constI32(rw, loc, op.getType().getArrivals()), first);
    fenceAsyncShared(rw, loc);
    if (state.cluster > 1) {
      // The cluster's other CTAs arrive on these barriers and multicast
      // copies signal them: all of them wait for every CTA's
      // initialization.
      NVVM::FenceMbarrierInitOp::create(rw, loc);
      clusterBarrier(rw, loc);
    } else {
      // Every warpgroup waits for the initialization: barrier 0, the CTA's.
      NVVM::BarrierOp::create(rw, loc, Type(), constI32(rw, loc, 0), Value(), {}, Value());
    }
    rw.replaceOp(op, offset);
    return success();
  }
};

struct MBarrierWaitLowering : SimtPattern<pgpu::MBarrierWaitOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::MBarrierWaitOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value bar = mbarrierAddress(rw, loc, state, a.getBarriers(), a.getIndex());
    if (op.getBarriers().getType().getCtas() > 1) {
      // Arrived on by the cluster's CTAs: what they did before arriving
      // (reading a buffer this CTA's copies refill in all of them) happens
      // before what this thread does next.
      waitAtClusterScope(rw, loc, bar, a.getPhase());
      rw.eraseOp(op);
      return success();
    }
    // The suspend-time hint CUDA's own pipelines use (ns).
    NVVM::MBarrierTryWaitParityOp::create(rw, loc, bar, a.getPhase(), constI32(rw, loc, 0x989680));
    rw.eraseOp(op);
    return success();
  }
};

struct MBarrierTestLowering : SimtPattern<pgpu::MBarrierTestOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::MBarrierTestOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value bar = mbarrierAddress(rw, loc, state, a.getBarriers(), a.getIndex());
    // (Arrived on by the cluster's CTAs: their accesses are seen too.)
    auto scope = op.getBarriers().getType().getCtas() > 1
                     ? NVVM::MemScopeKind::CLUSTER
                     : NVVM::MemScopeKind::CTA;
    rw.replaceOpWithNewOp<NVVM::MBarrierTestWaitOp>(op, rw.getI1Type(), bar, a.getPhase(), scope,
                                                    false);
    return success();
  }
};

/// Every thread done (a barrier), thread 0 arrives: its arrival releases
/// what the others did before, which the barrier ordered before it. Per
/// warp: each warp's lane 0 after the warp's own barrier, as the slot
/// releases of the staged pipelines do (RingLowering.cpp).
struct MBarrierArriveLowering : SimtPattern<pgpu::MBarrierArriveOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::MBarrierArriveOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    int64_t ctas = op.getBarriers().getType().getCtas();
    // Lane (or thread) r < ctas arrives, on CTA r's barrier of a cluster
    // barrier.
    Value issue, rank;
    if (op.getPerWarp()) {
      // Lane 0 of each warp, once the warp's lanes are done.
      NVVM::SyncWarpOp::create(rw, loc, constI32(rw, loc, -1));
      rank = arith::AndIOp::create(rw, loc, state.tid, constI32(rw, loc, 31));
    } else {
      barrier(rw, loc);
      rank = state.tid;
    }
    Value bar = mbarrierAddress(rw, loc, state, a.getBarriers(), a.getIndex());
    if (ctas == 1) {
      issue = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, rank, constI32(rw, loc, 0));
      predicatedArrive(rw, loc, issue, bar);
      rw.eraseOp(op);
      return success();
    }
    issue = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, rank, constI32(rw, loc, ctas));
    predicatedRemoteArrive(rw, loc, issue, bar, rank);
    rw.eraseOp(op);
    return success();
  }
};

struct TmaLoadLowering : SimtPattern<pgpu::TmaLoadOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::TmaLoadOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<KernelTensorMap> kmap = kernelTensorMap(op, op.getTensorMap(), state);
    auto buffer = bufferOf(op, a, state, rw);
    if (failed(kmap) || failed(buffer))
      return failure();
    auto [p, base] = *buffer;
    RankedTensorType tile = op.getRing().getType().getTile();
    std::pair<Value, Value> origin = boxAt(rw, loc, *kmap, a.getOrigin());
    // Nobody reads the buffer any more (JAX's barrier before a copy).
    barrier(rw, loc);
    Value issue = issuingThread(rw, loc, state);
    Value bar = mbarrierAddress(rw, loc, state, a.getBarriers(), a.getIndex());
    NVVM::MBarrierArriveExpectTxOp::create(
        rw, loc, Type(), bar,
        constI32(rw, loc, tile.getNumElements() * p->layout.elemBytes),
        NVVM::MemScopeKindAttr(), BoolAttr(), issue);
    // A multicast's boxes go round the cluster's n CTAs: box j is CTA
    // j % n's to fetch, for all of them (where the boxes do not divide
    // evenly, CTA 0 fetches them all).
    int64_t n = op.getMulticast() ? state.cluster : 1;
    int64_t boxes = llvm::divideCeil(tile.getDimSize(1), kmap->map.getBoxCols());
    Value mask, rank;
    if (n > 1) {
      mask = arith::ConstantIntOp::create(rw, loc, rw.getI16Type(), (1 << n) - 1);
      rank = NVVM::ClusterId::create(rw, loc, rw.getI32Type());
    }
    int64_t box = 0;
    forEachBox(rw, loc, *kmap, base, p->layout, origin, tile.getDimSize(1),
               /*clusterAddress=*/true, [&](Value dst, ValueRange coords) {
                 Value mine = issue;
                 if (n > 1) {
                   int64_t owner = boxes % n == 0 ? box % n : 0;
                   mine = arith::AndIOp::create(
                       rw, loc, issue,
                       arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, rank,
                                             constI32(rw, loc, owner)));
                 }
                 ++box;
                 NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                     rw, loc, dst, kmap->param, coords, bar, ValueRange{}, mask, Value(),
                     NVVM::TMALoadModeAttr(), BoolAttr(), NVVM::CTAGroupKindAttr(), mine);
               });
    rw.eraseOp(op);
    return success();
  }
};

/// Each thread stores the elements it holds where the buffer's layout puts
/// them: pairs of adjacent columns (the tensor-core layouts), or the
/// chunks of the blocked layout, a vector store each.
struct RingWriteLowering : SimtPattern<pgpu::RingWriteOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::RingWriteOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto buffer = bufferOf(op, a, state, rw);
    if (failed(buffer))
      return failure();
    auto [p, base] = *buffer;
    auto type = cast<RankedTensorType>(op.getValue().getType());
    if (type.getEncoding() && !hasMmaLayout(type))
      return op.emitError("writes a tensor of layout ")
             << type.getEncoding() << " into shared memory, which this target does not yet";
    const OperandSmemLayout &l = p->layout;
    int64_t vec = hasMmaLayout(type)
                      ? 2
                      : l.accessElements(BlockedLayout(type.getNumElements(), state.threads).vec,
                                         type.getDimSize(1));
    SlotCoordinates coords = slotCoordinates(rw, loc, state, type);
    SmallVector<Value> addresses =
        l.slotAddresses(rw, loc, base, coords, vec, state.shiftedAddresses);
    Type elem = storageType(type.getElementType());
    for (int64_t i = 0; i < static_cast<int64_t>(coords.size()); i += vec) {
      if (vec == 1) {
        LLVM::StoreOp::create(rw, loc, extractSlot(rw, loc, a.getValue(), i), addresses[i],
                              l.elemBytes);
        continue;
      }
      SmallVector<Value> elems;
      for (int64_t j = 0; j < vec; ++j)
        elems.push_back(extractSlot(rw, loc, a.getValue(), i + j));
      Value v = vector::FromElementsOp::create(rw, loc, VectorType::get({vec}, elem), elems);
      LLVM::StoreOp::create(rw, loc, v, addresses[i / vec], l.accessAlignment(vec));
    }
    rw.eraseOp(op);
    return success();
  }
};

struct CommitSmemLowering : SimtPattern<pgpu::CommitSmemOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::CommitSmemOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    fenceAsyncShared(rw, op.getLoc());
    barrier(rw, op.getLoc());
    rw.eraseOp(op);
    return success();
  }
};

struct TmaStoreBufferLowering : SimtPattern<pgpu::TmaStoreBufferOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::TmaStoreBufferOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    FailureOr<KernelTensorMap> kmap = kernelTensorMap(op, op.getTensorMap(), state);
    auto buffer = bufferOf(op, a, state, rw);
    if (failed(kmap) || failed(buffer))
      return failure();
    auto [p, base] = *buffer;
    RankedTensorType tile = op.getRing().getType().getTile();
    // Rows from some row on (dense rows; the verifier checked).
    if (a.getRow())
      base = smemByteAddress(
          rw, loc, base,
          arith::MulIOp::create(rw, loc, a.getRow(), constI32(rw, loc, p->layout.rowBytes)));
    std::pair<Value, Value> origin = boxAt(rw, loc, *kmap, a.getOrigin());
    Value issue = issuingThread(rw, loc, state);
    std::optional<NVVM::TMAReduxKind> reduce;
    if (std::optional<StringRef> kind = op.getReduce()) {
      reduce = NVVM::symbolizeTMAReduxKind(*kind);
      if (!reduce)
        return op.emitError("internal error: unknown TMA reduction '") << *kind << "'";
    }
    forEachBox(rw, loc, *kmap, base, p->layout, origin, tile.getDimSize(1),
               /*clusterAddress=*/false, [&](Value src, ValueRange coords) {
                 if (!reduce) {
                   NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                       rw, loc, kmap->param, src, coords, Value(), NVVM::TMAStoreMode::TILE,
                       issue);
                   return;
                 }
                 // (No predicate operand: a branch around it.)
                 auto ifOp = scf::IfOp::create(rw, loc, issue, /*withElse=*/false);
                 OpBuilder::InsertionGuard g(rw);
                 rw.setInsertionPointToStart(ifOp.thenBlock());
                 NVVM::CpAsyncBulkTensorReduceOp::create(rw, loc, kmap->param, src, *reduce,
                                                         NVVM::TMAStoreMode::TILE, coords,
                                                         Value());
               });
    rw.eraseOp(op);
    return success();
  }
};

/// Every thread closes its group (thread 0's holds the copies; the others'
/// are empty).
struct BulkCommitLowering : SimtPattern<pgpu::BulkCommitOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::BulkCommitOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::CpAsyncBulkCommitGroupOp::create(rw, op.getLoc());
    rw.eraseOp(op);
    return success();
  }
};

/// Thread 0 waits for its copies; the barrier tells the others.
struct BulkWaitLowering : SimtPattern<pgpu::BulkWaitOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::BulkWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::CpAsyncBulkWaitGroupOp::create(rw, op.getLoc(), op.getPending(),
                                         op.getRead() ? rw.getUnitAttr() : UnitAttr());
    barrier(rw, op.getLoc());
    rw.eraseOp(op);
    return success();
  }
};

struct WarpgroupIdLowering : SimtPattern<pgpu::WarpgroupIdOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::WarpgroupIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    if (!state.warpgroup)
      return op.emitError("internal error: a warpgroup index outside a function of several "
                          "warpgroups");
    rw.replaceOp(op, state.warpgroup);
    return success();
  }
};

struct SetMaxRegistersLowering : SimtPattern<pgpu::SetMaxRegistersOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(pgpu::SetMaxRegistersOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    NVVM::SetMaxRegisterOp::create(rw, op.getLoc(), op.getCount(),
                                   op.getIncrease() ? NVVM::SetMaxRegisterAction::increase
                                                    : NVVM::SetMaxRegisterAction::decrease);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void cuda::populateUserSchedulePatterns(const TypeConverter &tc, RewritePatternSet &patterns,
                                        SimtState &state) {
  patterns.add<AllocMBarriersLowering, MBarrierWaitLowering, MBarrierTestLowering,
               MBarrierArriveLowering,
               TmaLoadLowering, RingWriteLowering, CommitSmemLowering, TmaStoreBufferLowering,
               BulkCommitLowering, BulkWaitLowering, WarpgroupIdLowering,
               SetMaxRegistersLowering>(tc, patterns.getContext(), state);
}
