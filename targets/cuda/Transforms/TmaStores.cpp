//===- TmaStores.cpp - accumulator tiles stored through the TMA -----------===//
//
// A kernel's output tile is usually a dot's accumulator, held in the
// tensor-core layout: storing it took a layout change through shared memory
// (every thread writing its pairs, then reading its blocked runs back) and
// then every thread's global stores. When the tile is a box of a TMA view
// of its array, the threads only write it to shared memory (in the swizzle
// the TMA reads) and one thread stores it with bulk tensor copies.
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

/// The accumulator `store` writes where it can go by the TMA: the source
/// of the layout change to the blocked layout that feeds the store, one
/// the threads can write in the swizzle (swizzlableAccumulator).
Value storedAccumulator(tt::StoreOp store) {
  auto layoutCast = store.getValue().getDefiningOp<tensor::CastOp>();
  if (!layoutCast)
    return {};
  auto src = cast<RankedTensorType>(layoutCast.getSource().getType());
  auto dst = cast<RankedTensorType>(layoutCast.getType());
  if (!cuda::swizzlableAccumulator(src) || dst.getEncoding())
    return {};
  return layoutCast.getSource();
}

struct TmaStoresPass : pallas::impl::PallasTmaStoresBase<TmaStoresPass> {
  void runOnOperation() override {
    SmallVector<std::pair<tt::StoreOp, Value>> stores;
    getOperation().walk([&](tt::StoreOp store) {
      if (Value acc = storedAccumulator(store))
        stores.push_back({store, acc});
    });
    if (stores.empty())
      return;
    cuda::AxisInfoAnalysis axis;
    for (auto [store, acc] : stores) {
      auto type = cast<RankedTensorType>(acc.getType());
      auto tile = RankedTensorType::get(
          type.getShape(), type.getElementType(),
          pgpu::SharedEncodingAttr::get(&getContext(), pgpu::SharedLayoutKind::swizzle_128b));
      std::optional<pgpu::TensorMapAttr> view = cuda::tmaView(store, tile, axis);
      if (!view)
        continue;
      auto func = store->getParentOfType<tt::FuncOp>();
      OpBuilder b(store);
      pgpu::TmaStoreOp::create(b, store.getLoc(), store.getPtr(), acc,
                               cuda::tensorMapIndex(func, *view));
      Operation *layoutCast = store.getValue().getDefiningOp();
      store.erase();
      if (layoutCast->use_empty())
        layoutCast->erase();
    }
  }
};

} // namespace
