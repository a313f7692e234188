//===- UniformMasks.cpp - skip a loop's mask where it keeps the whole tile ===//
//
// Causal attention masks the scores with `select(q_index >= k_index, s, -inf)`
// in every iteration, though only the key blocks crossing the diagonal have
// any element masked off: the compare and the select cost two instructions
// per element (a sixth of the loop's) where they change nothing. The
// indices are tiles of the form `iota-built part + scalar`, so whether the
// compare holds for the whole tile is one scalar compare of the bounds;
// the select goes into an scf.if on it, which the whole CTA takes the same
// way (a uniform branch): the tiles that keep everything skip the mask.
//
//===----------------------------------------------------------------------===//
#include "Analysis/AxisInfo.h"
#include "pallas/Cuda/CudaPasses.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASUNIFORMMASKS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Every element of an integer tile is t + sum(scalars), t in [lo, hi]
/// (index arithmetic, assumed not to wrap).
struct TileBounds {
  int64_t lo = 0, hi = 0;
  SmallVector<Value> scalars;
};

std::optional<TileBounds> boundsOf(Value v, int depth = 0) {
  if (depth > 16)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto range = dyn_cast<tt::MakeRangeOp>(def))
    return TileBounds{range.getStart(), int64_t(range.getEnd()) - 1, {}};
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def))
    return boundsOf(def->getOperand(0), depth + 1);
  if (auto splat = dyn_cast<tt::SplatOp>(def); splat && !splat.getSrc().getType().isInteger(32))
    return std::nullopt;
  if (std::optional<int64_t> c = cuda::splatIntConstant(v))
    return TileBounds{*c, *c, {}};
  if (auto splat = dyn_cast<tt::SplatOp>(def))
    return TileBounds{0, 0, {splat.getSrc()}};
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    auto a = boundsOf(add.getLhs(), depth + 1), b = boundsOf(add.getRhs(), depth + 1);
    if (!a || !b)
      return std::nullopt;
    a->lo += b->lo;
    a->hi += b->hi;
    a->scalars.append(b->scalars);
    return a;
  }
  return std::nullopt;
}

/// The i1 scalar that holds when `cmp` holds for every element, or null
/// when that cannot be told from the bounds (built before `cmp`).
Value wholeTileHolds(OpBuilder &b, arith::CmpIOp cmp) {
  auto lhs = boundsOf(cmp.getLhs()), rhs = boundsOf(cmp.getRhs());
  if (!lhs || !rhs || (lhs->scalars.empty() && rhs->scalars.empty()))
    return {};
  // The predicate holds everywhere when it holds between the extremes:
  // lhs - rhs compared with 0 at its smallest (>=, >) or largest (<=, <).
  int64_t extreme;
  arith::CmpIPredicate pred = cmp.getPredicate();
  switch (pred) {
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::sgt:
    extreme = lhs->lo - rhs->hi;
    break;
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::slt:
    extreme = lhs->hi - rhs->lo;
    break;
  default:
    return {};
  }
  Location loc = cmp.getLoc();
  Type i64 = b.getI64Type();
  Value diff = arith::ConstantIntOp::create(b, loc, i64, extreme);
  for (Value s : lhs->scalars)
    diff = arith::AddIOp::create(b, loc, diff, arith::ExtSIOp::create(b, loc, i64, s));
  for (Value s : rhs->scalars)
    diff = arith::SubIOp::create(b, loc, diff, arith::ExtSIOp::create(b, loc, i64, s));
  return arith::CmpIOp::create(b, loc, pred, diff, arith::ConstantIntOp::create(b, loc, i64, 0));
}

/// `select(cmp, x, y)` inside a loop, where cmp varies with the loop:
/// scf.if (cmp holds for the whole tile) x else select(cmp, x, y).
void versionSelect(arith::SelectOp select, scf::ForOp loop) {
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || !isa<RankedTensorType>(cmp.getType()) || loop.isDefinedOutsideOfLoop(cmp) ||
      cmp->getBlock() != select->getBlock())
    return;
  OpBuilder b(select);
  Value whole = wholeTileHolds(b, cmp);
  if (!whole)
    return;
  Location loc = select.getLoc();
  auto ifOp = scf::IfOp::create(b, loc, select.getType(), whole, /*withElseRegion=*/true);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, select.getTrueValue());
  b.setInsertionPointToStart(ifOp.elseBlock());
  auto yield = scf::YieldOp::create(b, loc, select.getResult());
  select.getResult().replaceAllUsesExcept(ifOp.getResult(0), yield);
  select->moveBefore(yield);
  // The compare too, when only the mask needs it.
  if (cmp->hasOneUse())
    cmp->moveBefore(select);
}

struct UniformMasksPass : pallas::impl::PallasUniformMasksBase<UniformMasksPass> {
  void runOnOperation() override {
    SmallVector<std::pair<arith::SelectOp, scf::ForOp>> selects;
    getOperation().walk([&](scf::ForOp loop) {
      for (auto select : loop.getBody()->getOps<arith::SelectOp>())
        if (isa<RankedTensorType>(select.getType()))
          selects.push_back({select, loop});
    });
    for (auto [select, loop] : selects)
      versionSelect(select, loop);
  }
};

} // namespace
