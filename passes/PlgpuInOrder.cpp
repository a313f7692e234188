//===- PlgpuInOrder.cpp - plgpu kernels as pallas ops, in program order ---===//
//
// convert-plgpu-to-pallas: each Pallas thread of a plgpu kernel runs its
// ops in order, every copy completing at issue. For a kernel of one thread
// what is left is whole-array refs and pallas ops, which every lowering of
// the pallas dialect takes; its scratch is then handed on as values
// (ForwardScratch.cpp). A kernel of several threads keeps its barriers and
// thread index for a lowering that runs each thread on its own (`threads`,
// the host target).
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Mgpu/Mgpu.h"
#include "pallas/Passes/ForwardScratch.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_CONVERTPLGPUTOPALLAS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::plgpu;

namespace {

struct AxisIndexInOrder : OpRewritePattern<AxisIndexOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AxisIndexOp op, PatternRewriter &rewriter) const override {
    MeshAttr mesh = getKernelMesh(op);
    auto axis = mesh ? mesh.lookupAxis(op.getAxis()) : std::nullopt;
    if (!axis)
      return failure();
    Location loc = op.getLoc();
    switch (axis->first) {
    case MeshAttr::AxisKind::grid:
    case MeshAttr::AxisKind::cluster: {
      // The program ids are the launch's (MeshAttr::launchGrid): along
      // each, the grid index is the id over the cluster's size there, the
      // cluster index the remainder.
      MeshAttr::LaunchAxis at = mesh.launchAxisOf(axis->first, axis->second);
      bool isCluster = axis->first == MeshAttr::AxisKind::cluster;
      if (at.clusterSize == 1 && isCluster) {
        rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(op, 0, 32);
        return success();
      }
      Value id = ProgramIdOp::create(rewriter, loc, rewriter.getI32Type(), at.axis);
      if (at.clusterSize == 1) {
        rewriter.replaceOp(op, id);
        return success();
      }
      Value c = arith::ConstantIntOp::create(rewriter, loc, at.clusterSize, 32);
      if (isCluster)
        rewriter.replaceOpWithNewOp<arith::RemUIOp>(op, id, c);
      else
        rewriter.replaceOpWithNewOp<arith::DivUIOp>(op, id, c);
      return success();
    }
    case MeshAttr::AxisKind::thread:
      if (mesh.getNumThreads() > 1)
        return failure(); // Which thread runs is up to the lowering.
      rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(op, 0, 32);
      return success();
    }
    return failure();
  }
};

/// The copy engine's reduction as arith on the loaded values.
Value combine(OpBuilder &b, Location loc, StringRef kind, Value old, Value v) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(v.getType()));
  if (kind == "add")
    return isFloat ? (Value)arith::AddFOp::create(b, loc, old, v)
                   : (Value)arith::AddIOp::create(b, loc, old, v);
  if (kind == "min")
    return isFloat ? (Value)arith::MinimumFOp::create(b, loc, old, v)
                   : (Value)arith::MinSIOp::create(b, loc, old, v);
  if (kind == "max")
    return isFloat ? (Value)arith::MaximumFOp::create(b, loc, old, v)
                   : (Value)arith::MaxSIOp::create(b, loc, old, v);
  if (isFloat)
    return {};
  if (kind == "and")
    return arith::AndIOp::create(b, loc, old, v);
  if (kind == "or")
    return arith::OrIOp::create(b, loc, old, v);
  if (kind == "xor")
    return arith::XOrIOp::create(b, loc, old, v);
  return {};
}

/// A copy completes at issue: the destination takes the source's values
/// (combined with its own under a reduction).
template <typename CopyOpT>
struct CopyInOrder : OpRewritePattern<CopyOpT> {
  CopyInOrder(MLIRContext *ctx, bool keepBarriers)
      : OpRewritePattern<CopyOpT>(ctx), keepBarriers(keepBarriers) {}
  LogicalResult matchAndRewrite(CopyOpT op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if constexpr (std::is_same_v<CopyOpT, CopyGmemToSmemOp>)
      if (op.getPartitioned())
        return rewriter.notifyMatchFailure(op, "partitioned"); // (reported below)
    Value v = LoadOp::create(rewriter, loc, op.getSrc());
    if constexpr (std::is_same_v<CopyOpT, CopySmemToGmemOp>) {
      if (std::optional<StringRef> kind = op.getReduction()) {
        Value old = LoadOp::create(rewriter, loc, op.getDst());
        v = combine(rewriter, loc, *kind, old, v);
        if (!v)
          return rewriter.notifyMatchFailure(op, "reduction not supported in order");
      }
    }
    StoreOp::create(rewriter, loc, op.getDst(), v);
    if constexpr (std::is_same_v<CopyOpT, CopyGmemToSmemOp>) {
      // Complete at issue, the copy makes its arrival (several threads
      // wait on it; one thread in order never does).
      if (keepBarriers && op.getBarrier())
        BarrierArriveOp::create(rewriter, loc, op.getBarrier(), op.getBarrierIndex());
    }
    rewriter.eraseOp(op);
    return success();
  }
  bool keepBarriers = false;
};

/// acc[...] = acc[...] + a @ b, complete at issue.
struct WgmmaInOrder : OpRewritePattern<WgmmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WgmmaOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = op.getA();
    if (isa<RefType>(a.getType()))
      a = LoadOp::create(rewriter, loc, a);
    Value b = LoadOp::create(rewriter, loc, op.getB());
    Value acc = LoadOp::create(rewriter, loc, op.getAcc());
    Value sum = DotOp::create(rewriter, loc, acc.getType(), a, b, acc, StringAttr(),
                              op.getTransposeAAttr(), op.getTransposeBAttr());
    StoreOp::create(rewriter, loc, op.getAcc(), sum);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Ops with nothing left to do once copies complete at issue and one
/// thread runs: waits, commits, fences, arrivals, register budgets.
template <typename OpT>
struct EraseInOrder : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierTestInOrder : OpRewritePattern<BarrierTestOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BarrierTestOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(op, 1, 1);
    return success();
  }
};

struct LayoutCastInOrder : OpRewritePattern<LayoutCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayoutCastOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

/// In order, the kernel's one warpgroup is no longer observable (its
/// thread index is 0, nothing waits on another thread): the CTA may have
/// as many warps as its dots need to run one m64 row block per warpgroup
/// (16 rows a warp), as the GPU targets' tensor-core layouts take them.
void giveDotsTheirWarpgroups(KernelOp kernel) {
  LaunchAttr launch = getLaunch(kernel);
  if (!launch)
    return;
  int64_t warps = launch.getNumWarps();
  kernel.walk([&](DotOp dot) {
    auto type = cast<RankedTensorType>(dot.getType());
    int64_t rows = type.getShape()[type.getRank() - 2];
    int64_t want = rows / 16;
    if (rows % 64 == 0 && LaunchAttr::isValidNumWarps(want) && want <= 16)
      warps = std::max(warps, want);
  });
  if (warps != launch.getNumWarps())
    setLaunch(kernel, launch.withNumWarps(warps));
}

struct ConvertPlgpuToPallas
    : pallas::impl::ConvertPlgpuToPallasBase<ConvertPlgpuToPallas> {
  using ConvertPlgpuToPallasBase::ConvertPlgpuToPallasBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kernels of several threads keep their barriers (threads = true), or
    // are refused.
    bool keepBarriers = false;
    WalkResult refused = module.walk([&](KernelOp kernel) {
      MeshAttr mesh = getMesh(kernel);
      if (!mesh || mesh.getNumThreads() == 1)
        return WalkResult::advance();
      keepBarriers = true;
      if (threads)
        return WalkResult::advance();
      kernel.emitOpError("has ")
          << mesh.getNumThreads()
          << " Pallas threads (warpgroups) per block; this target runs plgpu kernels of one "
             "thread so far (num_threads = 1; the host target runs any number)";
      return WalkResult::interrupt();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();

    // A scoped accumulator (plgpu.ACC) starts at zero.
    module.walk([&](RunScopedOp scoped) {
      Block &body = scoped.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&body);
      for (BlockArgument a : body.getArguments()) {
        auto ref = dyn_cast<RefType>(a.getType());
        if (!ref || ref.getMemorySpace() != MemorySpace::regs)
          continue;
        auto type = RankedTensorType::get(ref.getShape(), ref.getElementType());
        Value zero = arith::ConstantOp::create(b, scoped.getLoc(), b.getZeroAttr(type));
        StoreOp::create(b, scoped.getLoc(), a, zero);
      }
    });

    RewritePatternSet patterns(&getContext());
    patterns.add<CopyInOrder<CopyGmemToSmemOp>, CopyInOrder<CopySmemToGmemOp>>(&getContext(),
                                                                                keepBarriers);
    patterns.add<AxisIndexInOrder, WgmmaInOrder, LayoutCastInOrder, EraseInOrder<CommitGroupOp>,
                 EraseInOrder<CommitSmemOp>, EraseInOrder<WaitSmemToGmemOp>,
                 EraseInOrder<WgmmaWaitOp>, EraseInOrder<SetMaxRegistersOp>>(&getContext());
    if (!keepBarriers)
      patterns.add<BarrierTestInOrder, EraseInOrder<BarrierArriveOp>,
                   EraseInOrder<BarrierWaitOp>>(&getContext());
    walkAndApplyPatterns(module, std::move(patterns));

    // What no pattern took (a reduction the copy engine has but arith
    // lacks in order, a partitioned copy) is reported where the user
    // wrote it.
    WalkResult left = module.walk([&](Operation *op) {
      if (!isa<PlgpuDialect>(op->getDialect()))
        return WalkResult::advance();
      if (keepBarriers && isa<AxisIndexOp, BarrierArriveOp, BarrierWaitOp, BarrierTestOp>(op))
        return WalkResult::advance();
      if (auto copy = dyn_cast<CopyGmemToSmemOp>(op); copy && copy.getPartitioned())
        op->emitOpError("partitions its window over the cluster (leader_tracked), which no "
                        "target runs yet (Blackwell's CTA-pair copies)");
      else
        op->emitOpError("cannot run in order on this target");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return signalPassFailure();

    // Copies through SMEM and the accumulator are values passed through
    // memory now: hand them on as values.
    module.walk([&](KernelOp kernel) {
      // (Scratch of several threads is shared between them.)
      if (!getMesh(kernel) || getMesh(kernel).getNumThreads() > 1)
        return;
      forwardWholeScratch(kernel);
      giveDotsTheirWarpgroups(kernel);
    });
  }
};

} // namespace
