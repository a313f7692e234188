//===- HoistEpilogueLoads.cpp - issue small epilogue loads before the K loop ===//
//
// A fused GEMM epilogue reads its bias row (a scale, a small block) after
// the K loop: the loop's last MMA is followed by a global load's whole
// latency (about a microsecond), once per output tile, while the tensor
// cores wait. Issued before the loop instead, the load completes under it,
// for the few registers it holds across the loop. Only loads whose address
// the block computes without effects from values defined before the loop,
// and whose array nothing between the two positions writes, move.
//
//===----------------------------------------------------------------------===//
#include "Transforms/StageLoads.h"
#include "pallas/Cuda/CudaPasses.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASHOISTEPILOGUELOADS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using cuda::isAliased;
using cuda::rootArgument;

namespace {

/// Loads of more elements would hold too many registers across the loop.
constexpr int64_t kMaxHoistedElements = 1024;

/// Whether `op` (and what it holds) may write `array`: a store, atomic or
/// TMA store to it, to an array sharing its buffer or to an unknown one,
/// or a call.
bool mayWrite(Operation *op, BlockArgument array) {
  return op
      ->walk([&](Operation *inner) {
        Value ptr;
        if (auto store = dyn_cast<tt::StoreOp>(inner))
          ptr = store.getPtr();
        else if (isa<tt::AtomicRMWOp, tt::AtomicCASOp>(inner))
          ptr = inner->getOperand(0);
        else if (auto store = dyn_cast<pgpu::TmaStoreOp>(inner))
          ptr = store.getPtr();
        else if (isa<CallOpInterface>(inner))
          return WalkResult::interrupt();
        if (!ptr)
          return WalkResult::advance();
        BlockArgument root = rootArgument(ptr);
        bool clash = !root || root == array || (isAliased(root) && isAliased(array));
        return clash ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The ops of `loop`'s block after it that `load` needs (itself last), in
/// block order, where all of them but the load are free of effects and
/// regions and everything else they read is defined before `loop`.
std::optional<SmallVector<Operation *>> sliceAfter(tt::LoadOp load, scf::ForOp loop) {
  SetVector<Operation *> slice;
  SmallVector<Operation *> work{load};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!slice.insert(op))
      continue;
    if (op != load.getOperation() && (!isMemoryEffectFree(op) || op->getNumRegions()))
      return std::nullopt;
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == loop->getBlock() && loop->isBeforeInBlock(def)) {
        work.push_back(def);
        continue;
      }
      // Defined before the loop (or outside its block, above it), not in it.
      if (def ? loop->isAncestor(def) : loop->isAncestor(v.getParentBlock()->getParentOp()))
        return std::nullopt;
    }
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct HoistEpilogueLoads
    : public pallas::impl::PallasHoistEpilogueLoadsBase<HoistEpilogueLoads> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->walk([](tt::DotOp) { return WalkResult::interrupt(); }).wasInterrupted())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      SmallVector<tt::LoadOp> loads;
      for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
        if (auto load = dyn_cast<tt::LoadOp>(op))
          loads.push_back(load);
      for (tt::LoadOp load : loads) {
        auto type = dyn_cast<RankedTensorType>(load.getType());
        BlockArgument array = rootArgument(load.getPtr());
        if (!type || type.getNumElements() > kMaxHoistedElements || load.getIsVolatile() ||
            !array)
          continue;
        bool written = false;
        for (Operation *op = loop; op != load.getOperation() && !written; op = op->getNextNode())
          written = mayWrite(op, array);
        if (written)
          continue;
        if (std::optional<SmallVector<Operation *>> slice = sliceAfter(load, loop))
          for (Operation *op : *slice)
            op->moveBefore(loop);
      }
    }
  }
};

} // namespace
