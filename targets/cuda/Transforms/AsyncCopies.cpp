//===- AsyncCopies.cpp - manual DMA by cp.async groups or the TMA ---------===//
//
// A `pallas.async_copy` into a scoped buffer arrives here as a tt.load
// marked tt.async_copy, its value the buffer's contents. The copy now
// starts where the load was, into a one-buffer ring, as a cp.async group
// of its own; the contents are read from the ring after waiting for that
// group, right before the first op that uses them (or writes memory, which
// could be the copied window). Everything between (the kernel's other
// copies and work) runs while the copy is in flight. With `tma` (sm_90a), a
// copy the TMA can make goes by the TMA into a swizzled buffer, its
// mbarrier's phase waited for in place of the group.
//
//===----------------------------------------------------------------------===//
#include "Analysis/AxisInfo.h"
#include "Dialect/SharedLayouts.h"
#include "Transforms/StageLoads.h"

#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASASYNCCOPIES
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Whether the copy can go through a ring: a stageable block (2-D, zero
/// where masked off, as cp.async fills), whose value no dot reads (dots
/// read staged operands in place, in layouts pallas-stage-loads chooses),
/// read in the load's block or below it.
bool asyncCopyable(tt::LoadOp load) {
  if (!cuda::stageableLoad(load) || cast<RankedTensorType>(load.getType()).getEncoding())
    return false;
  for (Operation *user : load->getUsers())
    if (isa<tt::DotOp, tt::TransOp>(user) || !load->getBlock()->findAncestorOpInBlock(*user))
      return false;
  return !load->use_empty();
}

/// Where the copy's value must have landed: the first op of the load's
/// block that uses it or, before that, writes memory (the copy reads the
/// array when it starts: a write may be to the copied window, after its
/// dma_wait).
Operation *firstUse(tt::LoadOp load) {
  Block *block = load->getBlock();
  Operation *first = nullptr;
  for (Operation *user : load->getUsers()) {
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!first || at->isBeforeInBlock(first))
      first = at;
  }
  for (Operation *op = load->getNextNode(); op && op != first; op = op->getNextNode())
    if (cuda::writesMemory(op))
      return op;
  return first;
}

struct AsyncCopiesPass : pallas::impl::PallasAsyncCopiesBase<AsyncCopiesPass> {
  using PallasAsyncCopiesBase::PallasAsyncCopiesBase;

  void runOnOperation() override {
    SmallVector<tt::LoadOp> loads;
    int64_t bytes = 0;
    getOperation().walk([&](tt::LoadOp load) {
      if (!load->hasAttr(tt::kAsyncCopyAttrName) || !asyncCopyable(load))
        return;
      int64_t size = cuda::paddedRowLayout(cast<RankedTensorType>(load.getType())).bytes;
      if (4 * (bytes + size) > sharedBytes)
        return;
      bytes += size;
      loads.push_back(load);
    });
    // Each copy is a group: the wait before its first reader lets the
    // groups committed after it in the same block stay in flight. (Groups
    // other passes add later, in loops between, only make it wait longer.)
    struct Started {
      pgpu::AsyncCommitOp commit;
      Operation *firstUse;
      Value ring;
      RankedTensorType type;
      tt::LoadOp load;
      pgpu::AsyncWaitOp wait = {};
    };
    SmallVector<Started> started;
    cuda::AxisInfoAnalysis axis;
    for (tt::LoadOp load : loads) {
      auto type = cast<RankedTensorType>(load.getType());
      Operation *first = firstUse(load);
      Location loc = load.getLoc();
      // Rings live for the kernel: allocated at its start.
      auto func = load->getParentOfType<tt::FuncOp>();
      auto at = OpBuilder::atBlockBegin(&func.getBody().front());
      OpBuilder b(load);
      if (tma) {
        auto tile = type.cloneWithEncoding(pgpu::SharedEncodingAttr::get(
            &getContext(), pgpu::SharedLayoutKind::swizzle_128b));
        if (std::optional<pgpu::TensorMapAttr> view = cuda::tmaView(load, tile, axis)) {
          Value ring =
              pgpu::AllocRingOp::create(at, loc, pgpu::RingType::get(&getContext(), 1, tile));
          Value barriers = pgpu::AllocSlotBarriersOp::create(
              at, loc, pgpu::SlotBarriersType::get(&getContext(), 1), /*tma=*/true,
              /*producer=*/false);
          Value slot = arith::ConstantIntOp::create(b, loc, 0, 32);
          // The phase this copy completes, read before anyone can issue it;
          // the barrier also keeps the copy from overwriting what a
          // thread still reads of the buffer's previous contents.
          Value phase = pgpu::FilledPhaseOp::create(b, loc, b.getI32Type(), barriers, slot);
          gpu::BarrierOp::create(b, loc);
          pgpu::TmaCopyOp::create(b, loc, load.getPtr(), ring, slot, barriers, Value(),
                                  cuda::tensorMapIndex(func, *view), /*last_reader=*/false,
                                  /*producer=*/false);
          OpBuilder w(first);
          pgpu::WaitFilledOp::create(w, loc, barriers, slot, phase);
          load.getResult().replaceAllUsesWith(
              pgpu::RingReadOp::create(w, loc, type, ring, slot).getResult());
          load.erase();
          continue;
        }
      }
      auto tile = type.cloneWithEncoding(pgpu::SharedEncodingAttr::get(
          &getContext(), pgpu::SharedLayoutKind::padded_rows));
      Value ring = pgpu::AllocRingOp::create(at, loc, pgpu::RingType::get(&getContext(), 1, tile));
      Value slot = arith::ConstantIntOp::create(b, loc, 0, 32);
      pgpu::AsyncCopyOp::create(b, loc, load.getPtr(), ring, slot, load.getMask(), Value());
      auto commit = pgpu::AsyncCommitOp::create(b, loc);
      started.push_back({commit, first, ring, type, load});
    }
    for (Started &s : started) {
      int64_t after = 0;
      for (Operation *op = s.commit->getNextNode(); op && op != s.firstUse;
           op = op->getNextNode())
        after += isa<pgpu::AsyncCommitOp>(op);
      OpBuilder b(s.firstUse);
      Location loc = s.load.getLoc();
      auto wait = pgpu::AsyncWaitOp::create(b, loc, after);
      Value slot = arith::ConstantIntOp::create(b, loc, 0, 32);
      Value value = pgpu::RingReadOp::create(b, loc, s.type, s.ring, slot);
      s.load.getResult().replaceAllUsesWith(value);
      s.load.erase();
      s.wait = wait;
    }
    // A wait that an earlier one in the block already covers (its group was
    // among those that one waited for) goes.
    for (Started &s : started) {
      int64_t after = 0;
      for (Operation *op = s.commit->getNextNode(); op && op != s.wait; op = op->getNextNode()) {
        after += isa<pgpu::AsyncCommitOp>(op);
        auto earlier = dyn_cast<pgpu::AsyncWaitOp>(op);
        if (earlier && static_cast<int64_t>(earlier.getPending()) <= after) {
          s.wait.erase();
          break;
        }
      }
    }
  }
};

} // namespace
