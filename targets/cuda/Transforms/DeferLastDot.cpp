//===- DeferLastDot.cpp - a loop's last dot issues with the next first dot ===//
//
// Attention's loop body is  S = dot(Q, K_j); P = softmax(S); O = dot(P, V_j, O * a).
// Each warpgroup issues the first dot, waits for it, runs the softmax and
// issues the second: with warpgroups taking turns (pallas-warpgroup-turns),
// one warpgroup's softmax must hide under a single dot of the other's.
// Deferring the last dot by one iteration,
//
//   S0(lb)
//   for j = lb + step .. ub:  O = dot(P, V_{j-1}, O * a); S = dot(Q, K_j); P, a = softmax(S)
//   O = dot(P, V_last, O * a)
//
// puts both dots of a turn side by side, so a softmax hides under two dots,
// as FA3 schedules it. The deferred part (stage 1) is the last dot and the
// ops only it needs on its accumulator and B side; the values it takes from
// the rest of the body (P, the rescale factor) are carried to the next
// iteration, and index computations it needs are recomputed from the
// induction variable, so its loads keep addresses affine in it
// (pallas-stage-loads streams them as before).
//
// The prologue and epilogue run stage 0 and stage 1 once each
// unconditionally, so the loop must run at least once: its bounds must be
// provably ordered from constants and program ids (whose ranges the launch
// grid gives). Upstream's scf pipeliner would predicate every prologue op
// for such dynamic bounds instead, which tt.load and tt.dot cannot take.
//
//===----------------------------------------------------------------------===//
#include "Analysis/LoopSlice.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Passes/ExpandF8Conversions.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASDEFERLASTDOT
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

struct Range {
  int64_t lo, hi;
};

/// The values an integer may take, when it is computed from constants and
/// program ids (0 .. programs - 1 along their axis) by + - * min max and
/// stays within i32.
std::optional<Range> rangeOf(Value v, const ProgramGrid &grid, int depth = 0) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return Range{c.getSExtValue(), c.getSExtValue()};
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return std::nullopt;
  if (auto pid = dyn_cast<tt::GetProgramIdOp>(def)) {
    unsigned axis = static_cast<unsigned>(pid.getAxis());
    if (grid.folded || axis >= grid.ids.size())
      return std::nullopt;
    return Range{0, grid.ids[axis] - 1};
  }
  if (isa<arith::IndexCastOp, arith::ExtSIOp>(def))
    return rangeOf(def->getOperand(0), grid, depth + 1);
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::MinSIOp, arith::MaxSIOp>(def))
    return std::nullopt;
  std::optional<Range> l = rangeOf(def->getOperand(0), grid, depth + 1);
  std::optional<Range> r = rangeOf(def->getOperand(1), grid, depth + 1);
  if (!l || !r)
    return std::nullopt;
  Range out;
  if (isa<arith::AddIOp>(def)) {
    out = {l->lo + r->lo, l->hi + r->hi};
  } else if (isa<arith::SubIOp>(def)) {
    out = {l->lo - r->hi, l->hi - r->lo};
  } else if (isa<arith::MulIOp>(def)) {
    int64_t p[] = {l->lo * r->lo, l->lo * r->hi, l->hi * r->lo, l->hi * r->hi};
    out = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
  } else if (isa<arith::MinSIOp>(def)) {
    out = {std::min(l->lo, r->lo), std::min(l->hi, r->hi)};
  } else {
    out = {std::max(l->lo, r->lo), std::max(l->hi, r->hi)};
  }
  // Beyond i32 the arithmetic could wrap.
  if (out.lo < std::numeric_limits<int32_t>::min() || out.hi > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return out;
}

/// Whether `loop` runs at least once, for every program of the launch.
bool runsAtLeastOnce(scf::ForOp loop, const ProgramGrid &grid) {
  std::optional<Range> lb = rangeOf(loop.getLowerBound(), grid);
  std::optional<Range> ub = rangeOf(loop.getUpperBound(), grid);
  return lb && ub && lb->hi < ub->lo;
}

/// How the body splits: the deferred stage (the last dot and the ops only
/// it needs), the pure index computations it recomputes from the
/// induction variable, and the values it takes from the rest.
struct Split {
  tt::DotOp last;
  unsigned accIndex = 0;
  DenseSet<Operation *> deferred;
  DenseSet<Operation *> recomputed;
  SetVector<Value> carried;
};

/// The top-level op of `body` that holds `op`.
Operation *inBody(Block *body, Operation *op) { return body->findAncestorOpInBlock(*op); }

/// Whether `v`'s computation in `body` goes through a dot (also through
/// what ops with regions, such as pallas-uniform-masks' scf.if, use
/// inside them).
bool fromDot(Value v, Block *body, DenseSet<Operation *> &seen) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body || !seen.insert(def).second)
    return false;
  if (isa<tt::DotOp>(def))
    return true;
  bool found = false;
  def->walk([&](Operation *nested) {
    for (Value o : nested->getOperands())
      found = found || fromDot(o, body, seen);
  });
  return found;
}

std::optional<Split> splitBody(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<tt::DotOp> dots(body->getOps<tt::DotOp>());
  if (dots.size() < 2)
    return std::nullopt;
  // Moving a load to the next iteration is safe only if nothing in the
  // loop writes memory.
  for (Operation &op : body->without_terminator())
    if (!isMemoryEffectFree(&op) && !isa<tt::LoadOp>(op))
      return std::nullopt;
  Split s;
  s.last = dots.back();
  auto resultType = cast<RankedTensorType>(s.last.getType());
  Type elem = cast<RankedTensorType>(s.last.getA().getType()).getElementType();
  if (!resultType.getElementType().isF32() || !(elem.isBF16() || elem.isF16() || isF8(elem)))
    return std::nullopt;
  // The last dot accumulates a loop-carried value and only the yield reads it.
  if (!s.last->hasOneUse() || *s.last->user_begin() != yield)
    return std::nullopt;
  s.accIndex = s.last->use_begin()->getOperandNumber();
  // Its A operand is the work between the dots (softmax of the first).
  DenseSet<Operation *> seen;
  if (!fromDot(s.last.getA(), body, seen))
    return std::nullopt;

  // Stage 1: the last dot and, walking back from its B and accumulator
  // operands, every op whose results only stage 1 reads.
  s.deferred.insert(s.last);
  DenseSet<Value> wanted = {s.last.getB(), s.last.getC()};
  for (Operation &op : llvm::reverse(body->without_terminator())) {
    if (s.deferred.contains(&op) ||
        llvm::none_of(op.getResults(), [&](Value r) { return wanted.contains(r); }))
      continue;
    bool onlyDeferred = llvm::all_of(op.getUsers(), [&](Operation *u) {
      return s.deferred.contains(inBody(body, u));
    });
    if (!onlyDeferred)
      continue;
    s.deferred.insert(&op);
    for (Value o : op.getOperands())
      wanted.insert(o);
  }

  BlockArgument acc = loop.getRegionIterArgs()[s.accIndex];
  // Stage 0 must not read the accumulator: stage 1 of the previous
  // iteration has not updated it yet.
  for (Operation *u : acc.getUsers())
    if (!s.deferred.contains(inBody(body, u)))
      return std::nullopt;
  // What stage 1 reads from the rest of the body, in body order (the
  // order of the new carried values: same input, same output).
  for (Operation &bodyOp : body->without_terminator()) {
    Operation *op = &bodyOp;
    if (!s.deferred.contains(op))
      continue;
    bool ok = true;
    op->walk([&](Operation *nested) {
      for (Value o : nested->getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == body) {
          // Other carried values are one iteration ahead by then.
          if (arg != acc && arg != loop.getInductionVar())
            ok = false;
          continue;
        }
        Operation *def = o.getDefiningOp();
        if (!def || def->getBlock() != body || s.deferred.contains(def))
          continue;
        SetVector<Operation *> slice;
        if (cuda::collectIndexSlice(loop, o, slice))
          s.recomputed.insert(slice.begin(), slice.end());
        else
          s.carried.insert(o);
      }
    });
    if (!ok)
      return std::nullopt;
  }
  // A block loaded in the body that stage 1 reads too (attention
  // backward's Q for dK, besides Q K^T) would be carried to the next
  // iteration in registers, where pallas-stage-loads cannot stream it.
  for (Value v : s.carried)
    if (v.getDefiningOp<tt::LoadOp>())
      return std::nullopt;
  return s;
}

/// Clones the ops of `body` that `pick` selects, in body order.
void cloneOps(OpBuilder &b, Block *body, IRMapping &map,
              llvm::function_ref<bool(Operation *)> pick) {
  for (Operation &op : body->without_terminator())
    if (pick(&op))
      b.clone(op, map);
}

void defer(scf::ForOp loop, const Split &s) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto stage0 = [&](Operation *op) { return !s.deferred.contains(op); };
  auto stage1 = [&](Operation *op) {
    return s.deferred.contains(op) || s.recomputed.contains(op);
  };
  ValueRange inits = loop.getInitArgs();
  auto iterArgs = loop.getRegionIterArgs();

  // Prologue: stage 0 of the first iteration.
  IRMapping pro;
  pro.map(loop.getInductionVar(), loop.getLowerBound());
  for (auto [arg, init] : llvm::zip(iterArgs, inits))
    pro.map(arg, init);
  cloneOps(b, body, pro, stage0);

  SmallVector<Value> newInits;
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    newInits.push_back(i == s.accIndex ? inits[i] : pro.lookupOrDefault(v));
  for (Value v : s.carried)
    newInits.push_back(pro.lookup(v));
  Value lb = arith::AddIOp::create(b, loc, loop.getLowerBound(), loop.getStep());
  auto rotated = scf::ForOp::create(b, loc, lb, loop.getUpperBound(), loop.getStep(), newInits);
  rotated->setAttrs(loop->getAttrs());

  // Kernel: stage 1 of the previous iteration, then stage 0 of this one.
  Block *newBody = rotated.getBody();
  b.setInsertionPointToStart(newBody);
  unsigned n = iterArgs.size();
  auto newArgs = rotated.getRegionIterArgs();
  IRMapping late;
  late.map(loop.getInductionVar(),
           arith::SubIOp::create(b, loc, rotated.getInductionVar(), loop.getStep()));
  late.map(iterArgs[s.accIndex], newArgs[s.accIndex]);
  for (auto [i, v] : llvm::enumerate(s.carried))
    late.map(v, newArgs[n + i]);
  IRMapping now;
  now.map(loop.getInductionVar(), rotated.getInductionVar());
  for (unsigned i = 0; i < n; ++i)
    now.map(iterArgs[i], newArgs[i]);
  // Stage 1 first: a ring slot's refill follows its read, and the V slot
  // read here is one every warpgroup fills a share of, so the earlier it is
  // read and refilled the longer the copies have to land (with the first dot
  // first and the copies after it, the same kernel ran 16 % slower).
  cloneOps(b, body, late, stage1);
  cloneOps(b, body, now, stage0);
  SmallVector<Value> yields;
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    yields.push_back(i == s.accIndex ? late.lookup(v) : now.lookupOrDefault(v));
  for (Value v : s.carried)
    yields.push_back(now.lookup(v));
  scf::YieldOp::create(b, loc, yields);

  // Epilogue: stage 1 of the last iteration, lb + (trip - 1) * step.
  b.setInsertionPointAfter(rotated);
  Value lbOld = loop.getLowerBound(), step = loop.getStep();
  Type t = lbOld.getType();
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 1));
  Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(), lbOld);
  Value trips = arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, arith::SubIOp::create(b, loc, step, one)),
      step);
  Value lastIv = arith::AddIOp::create(
      b, loc, lbOld,
      arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, trips, one), step));
  IRMapping epi;
  epi.map(loop.getInductionVar(), lastIv);
  epi.map(iterArgs[s.accIndex], rotated.getResult(s.accIndex));
  for (auto [i, v] : llvm::enumerate(s.carried))
    epi.map(v, rotated.getResult(n + i));
  cloneOps(b, body, epi, stage1);

  for (unsigned i = 0; i < n; ++i)
    loop.getResult(i).replaceAllUsesWith(i == s.accIndex ? epi.lookup(s.last->getResult(0))
                                                         : rotated.getResult(i));
  loop.erase();
}

struct DeferLastDotPass : pallas::impl::PallasDeferLastDotBase<DeferLastDotPass> {
  using PallasDeferLastDotBase::PallasDeferLastDotBase;
  void runOnOperation() override {
    getOperation().walk([&](tt::FuncOp func) {
      LaunchAttr launch = getLaunch(func);
      if (!launch)
        return;
      ProgramGrid grid = programGridOf(launch);
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops) {
        APInt step;
        if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) || !step.isStrictlyPositive() ||
            !runsAtLeastOnce(loop, grid))
          continue;
        // Trip counts that vary by program (causal attention) measured
        // slower deferred (H100: 371 vs 397 TFLOP/s): the peeled
        // iterations' loads are not streamed, and the copies' masks cost
        // more inside the warpgroup's turn.
        if (!dynamicTripCounts && !(matchPattern(loop.getLowerBound(), m_Constant()) &&
                                    matchPattern(loop.getUpperBound(), m_Constant())))
          continue;
        if (std::optional<Split> s = splitBody(loop))
          defer(loop, *s);
      }
    });
  }
};

} // namespace
