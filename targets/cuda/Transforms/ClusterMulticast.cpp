//===- ClusterMulticast.cpp - CTAs of a cluster share blocks ---------------===//
//
// A GEMM's programs along the M axis all read the same column block of B
// at each K step. Launched in thread-block clusters of n consecutive
// programs that differ only in their M program id, the n CTAs need one
// copy of that block from L2 rather than n: each CTA's producer issues a
// part of its boxes as a TMA multicast, which lands in every CTA of the
// cluster at the same shared-memory offset and signals every CTA's filled
// barrier there. The price is coupling: a CTA's producer now also writes
// its partners' slots, so it may refill a slot only once every CTA of the
// cluster has released it (the lowering's cluster-wide released barriers),
// and the CTAs must fill and release their slots in step.
//
// This pass decides whether a kernel can be launched so, and which copies
// are the shared ones; RingLowering and convert-tile-to-nvvm do the rest.
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASCLUSTERMULTICAST
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// The program-id axis along which a cluster's n consecutive CTAs differ
/// (and no other), or a reason why there is none.
FailureOr<unsigned> clusterAxis(LaunchAttr launch, int64_t n, std::string &why) {
  ProgramGrid grid = programGridOf(launch);
  if (launch.hasSymbolicGrid()) {
    why = "the grid's extents are symbolic";
    return failure();
  }
  if (grid.folded) {
    why = "the grid folds into one launch axis";
    return failure();
  }
  unsigned axis = grid.ordered ? static_cast<unsigned>(launch.getProgramOrder()[0]) : 0;
  int64_t extent = grid.ids[axis], group = grid.ordered ? launch.getProgramGroup() : 0;
  if (extent % n != 0 || (group && group % n != 0)) {
    why = "the " + std::to_string(extent) + " programs along grid axis " + std::to_string(axis) +
          (group ? " (in groups of " + std::to_string(group) + ")" : "") +
          " do not pair up in clusters of " + std::to_string(n);
    return failure();
  }
  return axis;
}

/// Whether `user` may use a value that differs between the CTAs of a
/// cluster (through operand `operand`): everything but what decides which
/// slots are filled and released, and how often.
bool mayDifferAcrossCluster(Operation *user, OpOperand &operand, bool inProducer) {
  if (auto copy = dyn_cast<pgpu::TmaCopyOp>(user))
    return &operand == &copy.getPtrMutable();
  // Values a loop carries, or an if or a loop yields (not its bounds, nor
  // any other control flow: whiles, conditions, switches).
  if (auto loop = dyn_cast<scf::ForOp>(user))
    return operand.getOperandNumber() >= loop.getNumControlOperands();
  if (isa<scf::YieldOp>(user))
    return isa<scf::ForOp, scf::IfOp>(user->getParentOp());
  if (user->getNumRegions() > 0 ||
      isa<scf::ConditionOp, pgpu::ReleaseSlotOp, pgpu::WaitReleasedOp, pgpu::WaitFilledOp,
          pgpu::FilledPhaseOp, pgpu::ArriveFilledOp, pgpu::AsyncCopyOp>(user))
    return false;
  // In the producer, only the addresses of its copies.
  return !inProducer || isMemoryEffectFree(user);
}

struct ClusterMulticastPass
    : pallas::impl::PallasClusterMulticastBase<ClusterMulticastPass> {
  using PallasClusterMulticastBase::PallasClusterMulticastBase;

  void runOnOperation() override {
    if (cluster <= 1)
      return;
    getOperation().walk([&](tt::FuncOp func) {
      std::string why;
      if (failed(apply(func, why)))
        func->setAttr(pgpu::kClusterUnusedAttrName, StringAttr::get(func.getContext(), why));
    });
  }

  LogicalResult apply(tt::FuncOp func, std::string &why) {
    LaunchAttr launch = getLaunch(func);
    if (!launch || !llvm::hasSingleElement(func.getBody())) {
      why = "the kernel has no launch of its own";
      return failure();
    }
    // The producer and the barriers every thread initializes before it.
    Block &entry = func.getBody().front();
    auto producers = llvm::to_vector(entry.getOps<pgpu::ProduceOp>());
    SmallVector<pgpu::TmaCopyOp> copies;
    if (producers.size() == 1)
      producers.front()->walk([&](pgpu::TmaCopyOp copy) { copies.push_back(copy); });
    if (copies.empty()) {
      why = "no producer warpgroup fills its rings through the TMA";
      return failure();
    }
    pgpu::ProduceOp produce = producers.front();
    for (auto barriers : func.getOps<pgpu::AllocSlotBarriersOp>())
      if (barriers->getBlock() != &entry || !barriers->isBeforeInBlock(produce)) {
        why = "slot barriers are made after the producer starts";
        return failure();
      }
    FailureOr<unsigned> axis = clusterAxis(launch, cluster, why);
    if (failed(axis))
      return failure();

    // What differs between the cluster's CTAs: the program id along the
    // axis, and all computed from it (through loops' carried values too).
    DenseSet<Value> differ;
    SmallVector<Value> work;
    auto mark = [&](Value v) {
      if (differ.insert(v).second)
        work.push_back(v);
    };
    func.walk([&](tt::GetProgramIdOp pid) {
      if (static_cast<unsigned>(pid.getAxis()) == *axis)
        mark(pid.getResult());
    });
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (!mayDifferAcrossCluster(user, use, produce->isProperAncestor(user))) {
          why = "what the CTAs fill or release depends on the program id along grid axis " +
                std::to_string(*axis);
          return failure();
        }
        if (auto loop = dyn_cast<scf::ForOp>(user)) {
          unsigned i = use.getOperandNumber() - loop.getNumControlOperands();
          mark(loop.getRegionIterArgs()[i]);
          mark(loop.getResult(i));
        } else if (isa<scf::YieldOp>(user)) {
          Operation *parent = user->getParentOp();
          mark(parent->getResult(use.getOperandNumber()));
          if (auto loop = dyn_cast<scf::ForOp>(parent))
            mark(loop.getRegionIterArgs()[use.getOperandNumber()]);
        } else {
          for (Value result : user->getResults())
            mark(result);
        }
      }
    }
    SmallVector<pgpu::TmaCopyOp> shared;
    for (pgpu::TmaCopyOp copy : copies)
      if (!differ.contains(copy.getPtr()))
        shared.push_back(copy);
    if (shared.empty()) {
      why = "every block the producer copies depends on the program id along grid axis " +
            std::to_string(*axis);
      return failure();
    }
    OpBuilder b(func.getContext());
    for (pgpu::TmaCopyOp copy : shared)
      copy.setMulticast(true);
    func->setAttr(pgpu::kClusterAttrName, b.getI64IntegerAttr(cluster));
    return success();
  }
};

} // namespace
