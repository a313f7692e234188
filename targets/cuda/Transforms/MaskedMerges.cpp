//===- MaskedMerges.cpp - merges by select as masked stores ---------------===//
//
// `store(p, select(m, new, load(p, mask)), mask)` writes back what it read
// where `m` is false: as `store(p, new, mask & m)` it writes only the
// elements it changes. The load must read the very elements the store
// writes (the same pointer tile and mask) with nothing in between that
// writes memory, so that what it read is what is there; the other operand
// of the select may come from anywhere. JAX's megablox `gmm` merges its
// group's rows into an output tile so: the rewrite spares reading the tile
// and holding it in registers beside the accumulator.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASMASKEDMERGES
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Whether some op strictly between `from` and `to` (in one block) may
/// write memory.
bool writesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || effects.hasEffect<MemoryEffects::Write>() ||
        effects.hasEffect<MemoryEffects::Free>())
      return true;
    // (Regions: their ops are not walked; an op with one is a write.)
    if (op->getNumRegions())
      return true;
  }
  return false;
}

/// Whether `v` is a load of the elements `store` writes (the same
/// pointers and mask) with nothing between them that writes memory.
bool loadsStoredElements(Value v, tt::StoreOp store) {
  auto load = v.getDefiningOp<tt::LoadOp>();
  return load && load.getPtr() == store.getPtr() && load.getMask() == store.getMask() &&
         !load.getIsVolatile() && load->getBlock() == store->getBlock() &&
         load->isBeforeInBlock(store) && !writesBetween(load, store);
}

struct MaskedMergesPass : pallas::impl::PallasMaskedMergesBase<MaskedMergesPass> {
  void runOnOperation() override {
    SmallVector<tt::StoreOp> stores;
    getOperation().walk([&](tt::StoreOp s) { stores.push_back(s); });
    for (tt::StoreOp store : stores) {
      auto select = store.getValue().getDefiningOp<arith::SelectOp>();
      if (!select || !isa<RankedTensorType>(select.getCondition().getType()))
        continue;
      // select(m, new, old) stores new where m; select(m, old, new) where !m.
      bool keepTrue = loadsStoredElements(select.getFalseValue(), store);
      if (!keepTrue && !loadsStoredElements(select.getTrueValue(), store))
        continue;
      OpBuilder b(store);
      Location loc = store.getLoc();
      Value changed = select.getCondition();
      if (!keepTrue) {
        auto type = cast<RankedTensorType>(changed.getType());
        Value ones = arith::ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, true));
        changed = arith::XOrIOp::create(b, loc, changed, ones);
      }
      Value load = keepTrue ? select.getFalseValue() : select.getTrueValue();
      store.getValueMutable().assign(keepTrue ? select.getTrueValue() : select.getFalseValue());
      if (store.getMask())
        store.getMaskMutable().assign(arith::AndIOp::create(b, loc, store.getMask(), changed));
      else
        store.getMaskMutable().append(changed);
      // No longer a mask of the array's bounds alone: the TMA, which
      // honours only those, may not take the store.
      store->removeAttr(tt::kBoundsMaskAttrName);
      if (select->use_empty())
        select.erase();
      if (load.use_empty())
        load.getDefiningOp()->erase();
    }
  }
};

} // namespace
