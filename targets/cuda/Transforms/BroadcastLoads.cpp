//===- BroadcastLoads.cpp - load a broadcast small tile directly -----------===//
//
//   v = load(p : tensor<Mx!ptr>)            pt = broadcast(expand_dims(p))
//   t = broadcast(expand_dims(ext(v)))  ->  t  = ext(load(pt, broadcast(mask), other))
//
// inside a loop, for tiles of at most kMaxElementsPerThread elements per
// thread: a broadcast between the blocked layouts of different ranks is
// an exchange through shared memory with barriers on either side, per
// iteration; loading the repeated addresses costs a load per element.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Layouts.h"
#include "pallas/Cuda/CudaPasses.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASBROADCASTLOADS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

constexpr int64_t kMaxElementsPerThread = 8;

/// `v` (a 1-D tensor) expanded at `axis` and broadcast to `to`'s shape,
/// in `v`'s element type. Pointer and index arithmetic is rebuilt on the
/// broadcast operands down to splats and other leaves, which are expanded
/// and broadcast: the lowering computes broadcast indices in place, but a
/// broadcast of a computed pointer would be an exchange again.
Value broadcastLike(OpBuilder &b, Location loc, Value v, int32_t axis, RankedTensorType to,
                    int depth = 0) {
  auto type = cast<RankedTensorType>(v.getType());
  RankedTensorType result = to.clone(type.getElementType());
  Operation *def = v.getDefiningOp();
  if (auto splat = dyn_cast_or_null<tt::SplatOp>(def))
    return tt::SplatOp::create(b, loc, result, splat.getSrc());
  if (def && depth < 8 && def->getNumResults() == 1 && def->getNumRegions() == 0 &&
      isa<tt::AddPtrOp, arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp,
          arith::OrIOp, arith::CmpIOp>(def) &&
      llvm::all_of(def->getOperands(), [&](Value o) {
        auto t = dyn_cast<RankedTensorType>(o.getType());
        return t && t.getShape() == type.getShape();
      })) {
    IRMapping map;
    for (Value o : def->getOperands())
      map.map(o, broadcastLike(b, loc, o, axis, to, depth + 1));
    Operation *op = b.clone(*def, map);
    op->getResult(0).setType(result);
    return op->getResult(0);
  }
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + axis, 1);
  Value e = tt::ExpandDimsOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()),
                                     v, axis);
  return tt::BroadcastOp::create(b, loc, result, e);
}

struct BroadcastLoad : OpRewritePattern<tt::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::BroadcastOp op, PatternRewriter &rw) const override {
    auto expand = op.getSrc().getDefiningOp<tt::ExpandDimsOp>();
    if (!expand || !expand->hasOneUse())
      return failure();
    Value v = expand.getSrc();
    Operation *ext = v.getDefiningOp<arith::ExtFOp>();
    if (ext) {
      if (!ext->hasOneUse())
        return failure();
      v = ext->getOperand(0);
    }
    auto load = v.getDefiningOp<tt::LoadOp>();
    auto type = cast<RankedTensorType>(op.getType());
    auto loop = op->getParentOfType<scf::ForOp>();
    LaunchAttr launch = launchOf(op);
    if (!load || !load->hasOneUse() || load->getBlock() != op->getBlock() || !loop ||
        load.getIsVolatile() || !launch || type.getEncoding() ||
        cast<RankedTensorType>(load.getType()).getRank() != 1)
      return failure();
    int64_t threads = 32 * launch.getNumWarps();
    if (type.getNumElements() > kMaxElementsPerThread * threads)
      return failure();
    // `other` must be a splat (what a masked element reads) to broadcast.
    Value other = load.getOther();
    SplatElementsAttr otherValue;
    if (other && !matchPattern(other, m_Constant(&otherValue)))
      return failure();

    Location loc = load.getLoc();
    rw.setInsertionPoint(load);
    int32_t axis = expand.getAxis();
    IRMapping map;
    map.map(load.getPtr(), broadcastLike(rw, loc, load.getPtr(), axis, type));
    if (Value mask = load.getMask())
      map.map(mask, broadcastLike(rw, loc, mask, axis, type));
    if (other) {
      auto otherType = type.clone(otherValue.getElementType());
      map.map(other, arith::ConstantOp::create(
                         rw, loc, otherType,
                         DenseElementsAttr::get(otherType, otherValue.getSplatValue<Attribute>())));
    }
    Operation *tile = rw.clone(*load, map);
    tile->getResult(0).setType(
        type.clone(cast<RankedTensorType>(load.getType()).getElementType()));
    Value result = tile->getResult(0);
    if (ext) {
      rw.setInsertionPoint(op);
      result = arith::ExtFOp::create(rw, ext->getLoc(), type, result);
    }
    rw.replaceOp(op, result);
    // (A load is not trivially dead: it goes by hand.)
    rw.eraseOp(expand);
    if (ext)
      rw.eraseOp(ext);
    rw.eraseOp(load);
    return success();
  }
};

struct BroadcastLoadsPass : pallas::impl::PallasBroadcastLoadsBase<BroadcastLoadsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BroadcastLoad>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
