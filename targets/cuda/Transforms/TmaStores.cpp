//===- TmaStores.cpp - accumulator tiles stored through the TMA -----------===//
//
// A kernel's output tile is usually a dot's accumulator, held in the
// tensor-core layout: storing it took a layout change through shared memory
// (every thread writing its pairs, then reading its blocked runs back) and
// then every thread's global stores. When the tile is a box of a TMA view
// of its array, the threads only write it to shared memory (in the swizzle
// the TMA reads) and one thread stores it with bulk tensor copies.
//
// An atomic add of such a tile whose old values nobody reads (a backward
// pass's dQ, added into by every program that meets its rows) goes the same
// way, by the TMA's reductions (cp.reduce.async.bulk.tensor .add), where no
// thread can tell the order of the kernel's writes to that array apart.
//
//===----------------------------------------------------------------------===//
#include "Analysis/AxisInfo.h"
#include "Dialect/SharedLayouts.h"
#include "Transforms/StageLoads.h"

#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASTMASTORES
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The accumulator a store writes (`value`) where it can go by the TMA:
/// the source of the layout change to the blocked layout that feeds the
/// store, one the threads can write in the swizzle (swizzlableAccumulator).
Value storedAccumulator(Value value) {
  auto layoutCast = value.getDefiningOp<tensor::CastOp>();
  if (!layoutCast)
    return {};
  auto src = cast<RankedTensorType>(layoutCast.getSource().getType());
  auto dst = cast<RankedTensorType>(layoutCast.getType());
  if (!cuda::swizzlableAccumulator(src) || dst.getEncoding())
    return {};
  return layoutCast.getSource();
}

/// Whether the f32 atomic add `rmw` may go by the TMA's reduction, which is
/// relaxed and completes after the thread goes on: nobody reads its old
/// values, and no thread of the kernel can observe the order of its writes
/// to the array: the kernel reads no atomic's old value, swaps nothing, and
/// reaches the array (or its aliases) by no other access.
bool reducibleAtomic(tt::AtomicRMWOp rmw, tt::FuncOp func) {
  if (rmw.getAtomicRmwOp() != tt::RMWOp::FADD || !rmw->use_empty() ||
      !getElementTypeOrSelf(rmw.getVal().getType()).isF32())
    return false;
  BlockArgument array = cuda::rootArgument(rmw.getPtr());
  if (!array)
    return false;
  WalkResult r = func.walk([&](Operation *op) {
    if (isa<tt::AtomicCASOp>(op) || (isa<tt::AtomicRMWOp>(op) && !op->use_empty()) ||
        isa<CallOpInterface>(op))
      return WalkResult::interrupt();
    Value ptr = cuda::writtenPointer(op);
    if (auto load = dyn_cast<tt::LoadOp>(op))
      ptr = load.getPtr();
    if (!ptr)
      return WalkResult::advance();
    BlockArgument root = cuda::rootArgument(ptr);
    // (Atomic adds into the array itself reduce in any order.)
    auto other = dyn_cast<tt::AtomicRMWOp>(op);
    bool addsInto = other && root == array && other.getAtomicRmwOp() == tt::RMWOp::FADD;
    return cuda::mayShareMemory(root, array) && !addsInto ? WalkResult::interrupt()
                                                           : WalkResult::advance();
  });
  return !r.wasInterrupted();
}

struct TmaStoresPass : pallas::impl::PallasTmaStoresBase<TmaStoresPass> {
  void runOnOperation() override {
    // Stores, and atomic adds (`reduce`), of accumulators.
    struct Write {
      Operation *op;
      Value ptr, acc;
      bool reduce;
    };
    SmallVector<Write> writes;
    getOperation().walk([&](Operation *op) {
      if (auto store = dyn_cast<tt::StoreOp>(op)) {
        if (Value acc = storedAccumulator(store.getValue()))
          writes.push_back({op, store.getPtr(), acc, false});
      } else if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op)) {
        Value acc = storedAccumulator(rmw.getVal());
        if (acc && reducibleAtomic(rmw, rmw->getParentOfType<tt::FuncOp>()))
          writes.push_back({op, rmw.getPtr(), acc, true});
      }
    });
    if (writes.empty())
      return;
    cuda::AxisInfoAnalysis axis;
    for (auto [op, ptr, acc, reduce] : writes) {
      auto type = cast<RankedTensorType>(acc.getType());
      auto tile = RankedTensorType::get(
          type.getShape(), type.getElementType(),
          pgpu::SharedEncodingAttr::get(&getContext(), pgpu::SharedLayoutKind::swizzle_128b));
      std::optional<pgpu::TensorMapAttr> view = cuda::tmaView(op, tile, axis);
      if (!view)
        continue;
      // The map of a reduction says what the elements are: the TMA adds
      // f32 as f32 (viewed as unsigned integers, it would add their bits).
      if (reduce)
        view = view->withDataType(*cuda::tmaReductionDataType(type.getElementType(), "add"));
      auto func = op->getParentOfType<tt::FuncOp>();
      OpBuilder b(op);
      auto tma = pgpu::TmaStoreOp::create(b, op->getLoc(), ptr, acc,
                                          cuda::tensorMapIndex(func, *view));
      tma.setReduceAdd(reduce);
      Operation *layoutCast = op->getOperand(1).getDefiningOp();
      op->erase();
      if (layoutCast->use_empty())
        layoutCast->erase();
    }
  }
};

} // namespace
