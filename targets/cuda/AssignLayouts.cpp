//===- AssignLayouts.cpp - pick register layouts for tile IR on CUDA ------===//
//
// Every tensor is in the blocked layout unless this pass says otherwise.
// Dots that tensor cores can run get their result, and their accumulator,
// in the mma layout (the `pallas.mma` encoding). When the accumulator is
// carried by an scf.for whose body yields the dot's result, the loop
// carries the mma layout too, so the accumulator never leaves the
// registers inside the loop. Layout changes are `tensor.cast`s between the
// encodings, which convert-pallas-to-nvvm turns into shared-memory
// exchanges.
//
//===----------------------------------------------------------------------===//
#include "SimtLowering.h"

#include "pallas/Cuda/CudaPasses.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASASSIGNLAYOUTS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

bool tensorCoresCanRun(tt::DotOp dot, int64_t threads) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto b = cast<RankedTensorType>(dot.getB().getType());
  auto d = cast<RankedTensorType>(dot.getType());
  if (a.getRank() != 2 || !d.getElementType().isF32())
    return false;
  Type e = a.getElementType();
  if (e != b.getElementType())
    return false;
  int64_t kStep;
  if (e.isBF16() || e.isF16())
    kStep = 16;
  else if (e.isF32() && dot.getInputPrecision() == tt::InputPrecision::TF32)
    kStep = 8;
  else
    return false;
  return a.getDimSize(1) % kStep == 0 &&
         MmaLayout::forShape(d.getDimSize(0), d.getDimSize(1), threads).has_value();
}

/// For a dot tensor cores can run: whether Hopper's warpgroup MMA can
/// (bf16/f16 operands, one m64 tile per warpgroup).
bool wgmmaCanRun(tt::DotOp dot, int64_t threads) {
  auto d = cast<RankedTensorType>(dot.getType());
  Type e = cast<RankedTensorType>(dot.getA().getType()).getElementType();
  return (e.isBF16() || e.isF16()) &&
         wgmmaLayout(d.getDimSize(0), d.getDimSize(1), threads).has_value();
}

/// Uses of `v` other than `except` now see `v` cast back to `plain`.
void castBackUses(OpBuilder &b, Value v, RankedTensorType plain, Operation *except) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : v.getUses())
    if (use.getOwner() != except)
      uses.push_back(&use);
  if (uses.empty())
    return;
  auto cast = tensor::CastOp::create(b, v.getLoc(), plain, v);
  for (OpOperand *use : uses)
    use->set(cast);
}

struct AssignLayoutsPass : pallas::impl::PallasAssignLayoutsBase<AssignLayoutsPass> {
  using PallasAssignLayoutsBase::PallasAssignLayoutsBase;

  void runOnOperation() override {
    SmallVector<tt::DotOp> dots;
    getOperation().walk([&](tt::DotOp d) { dots.push_back(d); });
    for (tt::DotOp dot : dots) {
      LaunchAttr launch = launchOf(dot);
      if (!launch) {
        dot.emitOpError("is in a function without a pallas.launch (its num_warps)");
        return signalPassFailure();
      }
      int64_t threads = 32 * launch.getNumWarps();
      if (!tensorCoresCanRun(dot, threads))
        continue;
      auto plain = cast<RankedTensorType>(dot.getType());
      bool warpgroup = wgmma && wgmmaCanRun(dot, threads);
      Attribute encoding =
          warpgroup ? wgmmaEncoding(&getContext(), threads / 32)
                    : mmaEncoding(&getContext(),
                                  *MmaLayout::forShape(plain.getDimSize(0),
                                                       plain.getDimSize(1), threads));
      auto mma = RankedTensorType::get(plain.getShape(), plain.getElementType(), encoding);
      OpBuilder b(dot);
      Value acc = dot.getC();
      auto loop = dyn_cast_or_null<scf::ForOp>(
          isa<BlockArgument>(acc) ? acc.getParentBlock()->getParentOp() : nullptr);
      std::optional<unsigned> carried;
      if (loop && cast<BlockArgument>(acc).getArgNumber() > 0) {
        unsigned i = cast<BlockArgument>(acc).getArgNumber() - 1;
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        if (yield.getOperand(i) == dot.getResult() &&
            dot->getParentOp() == loop.getOperation() &&
            llvm::all_of(acc.getUsers(), [&](Operation *u) { return u == dot; }))
          carried = i;
      }
      dot.getResult().setType(mma);
      if (carried) {
        // The loop carries the accumulator in the mma layout.
        unsigned i = *carried;
        b.setInsertionPoint(loop);
        Value init = loop.getInitArgs()[i];
        loop.getInitArgsMutable()[i].set(tensor::CastOp::create(b, loop.getLoc(), mma, init));
        loop.getRegionIterArgs()[i].setType(mma);
        Value result = loop.getResult(i);
        result.setType(mma);
        b.setInsertionPointAfter(loop);
        castBackUses(b, result, plain, nullptr);
        b.setInsertionPointAfter(dot);
        castBackUses(b, dot.getResult(), plain, loop.getBody()->getTerminator());
        continue;
      }
      b.setInsertionPoint(dot);
      dot.getCMutable().set(tensor::CastOp::create(b, dot.getLoc(), mma, acc));
      b.setInsertionPointAfter(dot);
      castBackUses(b, dot.getResult(), plain, nullptr);
    }
    narrowBeforeLeaving();
  }

  /// A value leaving a tensor-core layout only to be narrowed (f32 results
  /// stored as bf16) is narrowed first: the exchange between layouts then
  /// moves half the bytes.
  void narrowBeforeLeaving() {
    SmallVector<tensor::CastOp> casts;
    getOperation().walk([&](tensor::CastOp c) {
      if (hasMmaLayout(c.getSource().getType()) && !hasMmaLayout(c.getType()) &&
          c->hasOneUse() && isa<arith::TruncFOp>(*c->getUsers().begin()))
        casts.push_back(c);
    });
    for (tensor::CastOp c : casts) {
      auto trunc = cast<arith::TruncFOp>(*c->getUsers().begin());
      auto source = cast<RankedTensorType>(c.getSource().getType());
      auto narrow = cast<RankedTensorType>(trunc.getType());
      OpBuilder b(trunc);
      Value inLayout = arith::TruncFOp::create(
          b, trunc.getLoc(), narrow.cloneWithEncoding(source.getEncoding()), c.getSource());
      trunc.replaceAllUsesWith(
          tensor::CastOp::create(b, trunc.getLoc(), narrow, inLayout).getResult());
      trunc.erase();
      c.erase();
    }
  }
};

} // namespace
