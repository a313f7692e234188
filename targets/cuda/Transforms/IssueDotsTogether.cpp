//===- IssueDotsTogether.cpp - independent wgmma dots issued back to back --===//
//
// A loop body of several wgmma dots waits for each as it is issued, and the
// tensor cores drain between them. Where a later dot reads nothing an
// earlier one computes (attention backward's dO V^T beside Q K^T: both
// read their operands from rings, neither the other's result), the later
// one and what it needs from the body (its ring slot's wait and read, its
// accumulator's initial value) move up beside the earlier one; both are
// issued without waiting (`pallas_gpu.async`) and one `pallas_gpu.dot_wait`
// after them takes both results, as pallas-async-dots does for a turn.
//
// Two results live at once take registers. Attention backward on two
// warpgroups with 128-key blocks (dK and dV carried, 128 registers a
// thread) has no spills with them so and runs 6 % faster, once LLVM hoists
// no invariants out of its loop (CudaBackend: hoisted, they spilled 204
// bytes, 292 with the dots together, 25 % slower).
//
// What the later dot needs and reads from no ring (its accumulator's
// start computed from what the iteration had before: dP from 0 - delta,
// delta's row broadcast through shared memory) goes before the earlier
// dot's issue. Written between the two issues, ptxas waited for the
// earlier dot before issuing the later (C7517, "warpgroup.wait is
// injected"; the repeated values' copies into the later wgmma's registers
// are made where they are computed too: pallas_gpu.own_registers). Attention
// backward on 8 warps, H200: D = 64 -1.9 %, causal -2.1 %, D = 128 causal
// -2.1 %, JAX's mha form -1.2 / -1.8 %; D = 128 non-causal +0.6 %.
//
// Dots accumulating what the loop carries for them alone, A in registers
// (or a ring) and B in a ring (dV += P^T dO and dK += dS^T Q over the
// transposed scores, pallas-transpose-scores), are issued without waiting
// too, in loops of several dots: one wait before the yield takes them,
// the ring slots released after the first behind it. They run under the
// elementwise work and the exchanges that follow them. A synchronous dot
// after them that reads none of their results (dQ = dS K after dK +=
// dS^T Q) is issued before the last of them, waited for alone with that
// one left in flight: the exchange of its operand read dS^T's registers,
// which the tensor cores read for dK, and waited until they had (28 % of
// a consumer warp's stall samples in ncu); 6 % faster at D = 128.
//
// Only dots whose operands are all tiles in rings (or their transposes)
// move or are issued together: a dot whose operand goes through the
// scratch area would have it overwritten by the next exchange while the
// tensor cores still read it. Runs after pallas-stage-loads, which decides
// which operands are in rings; a slot released between the two dots stops
// the move (its refill must not overtake the moved wait).
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/DotLowering.h"
#include "Transforms/AsyncDots.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASISSUEDOTSTOGETHER
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// A wgmma dot of the body, issued synchronously, reading only ring tiles.
bool candidate(tt::DotOp dot) {
  auto type = cast<RankedTensorType>(dot.getType());
  return isa_and_nonnull<pgpu::WgmmaEncodingAttr>(type.getEncoding()) &&
         !dot->hasAttr(pgpu::kAsyncDotAttrName) && !dot->hasAttr(pgpu::kTurnTakeAttrName) &&
         !dot->hasAttr(pgpu::kTurnPassAttrName) && cuda::inRing(dot.getA()) &&
         cuda::inRing(dot.getB());
}

/// An op that may move up past the ops between `anchor` and it: free of
/// memory effects, or a ring slot's wait or read (what the producer writes
/// into a slot is there once its wait returns, wherever that is).
bool movable(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || isa<pgpu::WaitFilledOp, pgpu::RingReadOp>(op));
}

/// The ops after `anchor` in its block that `dot` needs (its backward
/// slice there, and every slot wait in between), in block order; none if
/// one of them reads `group`'s results or cannot move.
std::optional<SmallVector<Operation *>> sliceAfter(Operation *anchor, tt::DotOp dot,
                                                   ArrayRef<tt::DotOp> group) {
  Block *body = anchor->getBlock();
  llvm::SmallPtrSet<Operation *, 16> slice;
  SmallVector<Value> work(dot->getOperands());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (def && llvm::is_contained(group, def))
      return std::nullopt;
    if (!def || def->getBlock() != body || !anchor->isBeforeInBlock(def) || slice.contains(def))
      continue;
    if (!movable(def))
      return std::nullopt;
    slice.insert(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> ordered;
  for (Operation *op = anchor->getNextNode(); op != dot.getOperation(); op = op->getNextNode()) {
    if (isa<pgpu::ReleaseSlotOp>(op))
      return std::nullopt;
    if (isa<pgpu::WaitFilledOp>(op) || slice.contains(op))
      ordered.push_back(op);
  }
  return ordered;
}

/// A wgmma dot adding into what the loop carries for it alone (dV and dK
/// in attention backward over transposed scores), its A in registers or a
/// ring and its B in a ring: nothing in the iteration reads its result.
bool accumulatesAcrossIterations(tt::DotOp dot, scf::ForOp loop) {
  auto type = cast<RankedTensorType>(dot.getType());
  auto acc = dyn_cast<BlockArgument>(dot.getC());
  if (!isa_and_nonnull<pgpu::WgmmaEncodingAttr>(type.getEncoding()) ||
      !type.getElementType().isF32() || dot->hasAttr(pgpu::kAsyncDotAttrName) ||
      !acc || acc.getOwner() != loop.getBody() || acc == loop.getInductionVar() ||
      !acc.hasOneUse() || !dot->hasOneUse() || !cuda::readsNoScratch(dot))
    return false;
  OpOperand &use = *dot->use_begin();
  return use.getOwner() == loop.getBody()->getTerminator() &&
         use.getOperandNumber() == acc.getArgNumber() - 1;
}

/// A synchronous dot after the last accumulating one, reading none of
/// their results (attention backward's dQ = dS K after dK += dS^T Q), is
/// issued before it instead, with a wait for itself alone after it
/// (`pending` 1: the accumulating dot stays in flight). Its operand
/// exchange (dS through shared memory) then reads registers no wgmma in
/// flight reads: after the accumulating dot, whose A is dS^T, the stores
/// waited for the tensor cores to read those registers. Nothing uses the
/// scratch area between the moved dot and its wait.
void issueBeforeLast(ArrayRef<tt::DotOp> accumulating, ArrayRef<tt::DotOp> all) {
  // (`last` reads registers or ring tiles only: accumulatesAcrossIterations.)
  tt::DotOp last = accumulating.back();
  for (tt::DotOp dot : all) {
    auto type = cast<RankedTensorType>(dot.getType());
    if (!last->isBeforeInBlock(dot) || !isa_and_nonnull<pgpu::WgmmaEncodingAttr>(type.getEncoding()) ||
        !type.getElementType().isF32() || dot->hasAttr(pgpu::kAsyncDotAttrName))
      continue;
    std::optional<SmallVector<Operation *>> slice = sliceAfter(last, dot, accumulating);
    if (!slice)
      continue;
    for (Operation *op : *slice)
      op->moveBefore(last);
    dot->moveBefore(last);
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    cuda::issueWithWaitAt({dot}, b, /*pending=*/1);
    return;
  }
}

/// The loop's accumulating dots issued without waiting; one wait for them
/// at the iteration's end (a later synchronous dot's wait already covers
/// them), the ring slots released after them moved behind it. The tensor
/// cores then run them while the iteration goes on (attention backward:
/// dV under dS's elementwise work, dK under dS's exchange for dQ).
void leaveAccumulatingDotsInFlight(scf::ForOp loop) {
  SmallVector<tt::DotOp> dots, all(loop.getBody()->getOps<tt::DotOp>());
  for (tt::DotOp dot : all) {
    if (dot->hasAttr(pgpu::kTurnTakeAttrName) || dot->hasAttr(pgpu::kTurnPassAttrName))
      return;
    if (accumulatesAcrossIterations(dot, loop))
      dots.push_back(dot);
  }
  // (A loop of one dot has nothing to run under it: a GEMM's K loop keeps
  // its dot in flight across iterations instead, pallas-async-dots.)
  if (dots.empty() || all.size() < 2)
    return;
  Operation *yield = loop.getBody()->getTerminator();
  SmallVector<Operation *> releases;
  for (Operation *op = dots.front()->getNextNode(); op != yield; op = op->getNextNode()) {
    if (isa<pgpu::ReleaseSlotOp>(op))
      releases.push_back(op);
    // A ring refilled by the consumers right after its reader (TMA
    // without a producer, one-buffer rings) would be overwritten under
    // the dot still reading it.
    bool refill = false;
    op->walk([&](Operation *inner) {
      refill |= isa<pgpu::TmaCopyOp, pgpu::AsyncCopyOp, pgpu::AsyncWaitOp>(inner);
    });
    if (refill)
      return;
  }
  OpBuilder b(yield);
  cuda::issueWithWaitAt(dots, b);
  for (Operation *release : releases)
    release->moveBefore(yield);
  issueBeforeLast(dots, all);
}

/// Whether `v` is computed from broadcasts and constants alone by
/// elementwise ops (dP^T's start, `0 - delta` over delta's row broadcast):
/// values that repeat across a thread's registers.
bool repeatsBroadcastValues(Value v) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 8> seen;
  bool broadcast = false;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def)
      return false;
    if (!seen.insert(def).second || matchPattern(def, m_Constant()))
      continue;
    if (isa<tt::BroadcastOp>(def)) {
      broadcast = true;
      continue;
    }
    if (!isa<tensor::CastOp>(def) && !OpTrait::hasElementwiseMappableTraits(def))
      return false;
    work.append(def->operand_begin(), def->operand_end());
  }
  return broadcast;
}

/// Of the ops moved up beside a group's dots for `dot`, those that read no
/// ring (its accumulator's start computed from what the iteration had
/// before: dP^T's `0 - delta`, its row broadcast through shared memory) go
/// before the group's first dot. Written after that dot's issue, ptxas
/// waited for it before issuing `dot` (C7517): the tensor cores ran the
/// dots one after the other. A start whose values repeat is copied into
/// registers of its own there too (pallas_gpu.own_registers): LLVM would
/// copy the repeats into the wgmma's registers right before `dot`.
void hoistBeforeGroup(ArrayRef<Operation *> moved, tt::DotOp dot, Operation *front) {
  for (Operation *op : moved) {
    if (isa<pgpu::WaitFilledOp, pgpu::RingReadOp>(op))
      continue;
    bool ready = llvm::all_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return !def || def->getBlock() != front->getBlock() || def->isBeforeInBlock(front);
    });
    if (ready)
      op->moveBefore(front);
  }
  Operation *start = dot.getC().getDefiningOp();
  if (!start || start->getBlock() != front->getBlock() || !start->isBeforeInBlock(front) ||
      !cast<RankedTensorType>(dot.getC().getType()).getElementType().isF32() ||
      !repeatsBroadcastValues(dot.getC()))
    return;
  OpBuilder b(front);
  dot.getCMutable().assign(pgpu::OwnRegistersOp::create(b, dot.getLoc(), dot.getC().getType(), dot.getC()));
}

void groupLoop(scf::ForOp loop) {
  SmallVector<tt::DotOp> dots(loop.getBody()->getOps<tt::DotOp>());
  SmallVector<SmallVector<tt::DotOp>> groups;
  for (tt::DotOp dot : dots) {
    // (A dot that cannot join stays where it is; later ones may move up
    // past it, as past any op they do not need.)
    if (!candidate(dot))
      continue;
    if (!groups.empty() && !groups.back().empty()) {
      Operation *anchor = groups.back().back();
      if (auto slice = sliceAfter(anchor, dot, groups.back())) {
        Operation *at = anchor;
        for (Operation *op : *slice) {
          op->moveAfter(at);
          at = op;
        }
        dot->moveAfter(at);
        hoistBeforeGroup(*slice, dot, groups.back().front());
        groups.back().push_back(dot);
        continue;
      }
    }
    groups.push_back({dot});
  }
  for (ArrayRef<tt::DotOp> group : groups)
    if (group.size() > 1)
      cuda::issueWithOneWait(group);
  leaveAccumulatingDotsInFlight(loop);
}

struct IssueDotsTogetherPass
    : pallas::impl::PallasIssueDotsTogetherBase<IssueDotsTogetherPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      groupLoop(loop);
  }
};

} // namespace
