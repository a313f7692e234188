//===- AxisInfo.cpp - contiguity, constancy, divisibility of tile values --===//
#include "Analysis/AxisInfo.h"
#include "Dialect/SharedLayouts.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

/// The largest power of two dividing `v` (capped; 0 is divisible by all).
static int64_t powerOfTwoFactor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(kMaxDivisibility, v & -v);
}

static int64_t lastDim(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getShape().back() : 1;
}

static AxisInfo unknown() { return AxisInfo(); }

AxisInfo AxisInfoAnalysis::get(Value v) {
  auto it = known.find(v);
  if (it != known.end())
    return it->second;
  AxisInfo info = compute(v, 0);
  known[v] = info;
  return info;
}

AxisInfo AxisInfoAnalysis::compute(Value v, int depth) {
  if (depth > 64)
    return unknown();
  auto sub = [&](Value x) {
    auto it = known.find(x);
    if (it != known.end())
      return it->second;
    AxisInfo i = compute(x, depth + 1);
    known[x] = i;
    return i;
  };
  int64_t len = lastDim(v);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *parent = arg.getOwner()->getParentOp();
    // Kernel pointers are 16-byte aligned (tt.divisibility = 16).
    if (auto func = dyn_cast<tt::FuncOp>(parent))
      if (auto d = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tt.divisibility"))
        return {1, 1, d.getInt()};
    if (auto loop = dyn_cast<scf::ForOp>(parent))
      if (arg == loop.getInductionVar()) {
        AxisInfo lb = sub(loop.getLowerBound()), step = sub(loop.getStep());
        return {1, 1, std::min(lb.divisibility, step.divisibility)};
      }
    return unknown();
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return unknown();
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return {1, 1, powerOfTwoFactor(i.getInt())};
    if (auto d = dyn_cast<DenseIntElementsAttr>(c.getValue()); d && d.isSplat())
      return {1, len, powerOfTwoFactor(d.getSplatValue<APInt>().getSExtValue())};
    if (auto d = dyn_cast<DenseElementsAttr>(c.getValue()); d && d.isSplat())
      return {1, len, 1};
    return unknown();
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(def))
    return {len, 1, powerOfTwoFactor(range.getStart())};
  if (auto splat = dyn_cast<tt::SplatOp>(def))
    return {1, len, sub(splat.getSrc()).divisibility};
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    AxisInfo x = sub(expand.getSrc());
    auto srcType = cast<RankedTensorType>(expand.getSrc().getType());
    if (expand.getAxis() == srcType.getRank()) {
      // A new last dim of size 1: each run is one element of the source.
      bool uniform = x.constancy >= srcType.getShape().back();
      return {1, 1, uniform ? x.divisibility : 1};
    }
    return x;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    AxisInfo x = sub(bcast.getSrc());
    if (lastDim(bcast.getSrc()) == 1 && len > 1)
      return {1, len, x.divisibility};
    return x;
  }
  if (auto reshape = dyn_cast<tt::ReshapeOp>(def)) {
    // Merging the dims before the last keeps every run along the last.
    if (lastDim(reshape.getSrc()) == len)
      return sub(reshape.getSrc());
    return unknown();
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(def))
    return sub(def->getOperand(0));
  if (auto add = dyn_cast<tt::AddPtrOp>(def)) {
    AxisInfo p = sub(add.getPtr()), o = sub(add.getOffset());
    Type pointee = cast<tt::PointerType>(getElementTypeOrSelf(add.getPtr().getType()))
                       .getPointeeType();
    int64_t eb = smemElementBytes(pointee);
    return {std::max(std::min(p.contiguity, o.constancy), std::min(o.contiguity, p.constancy)),
            std::min(p.constancy, o.constancy),
            std::min(p.divisibility, std::min(kMaxDivisibility, o.divisibility * eb))};
  }
  if (isa<arith::AddIOp>(def)) {
    AxisInfo a = sub(def->getOperand(0)), b = sub(def->getOperand(1));
    return {std::max(std::min(a.contiguity, b.constancy), std::min(b.contiguity, a.constancy)),
            std::min(a.constancy, b.constancy), std::min(a.divisibility, b.divisibility)};
  }
  if (isa<arith::SubIOp>(def)) {
    AxisInfo a = sub(def->getOperand(0)), b = sub(def->getOperand(1));
    return {std::min(a.contiguity, b.constancy), std::min(a.constancy, b.constancy),
            std::min(a.divisibility, b.divisibility)};
  }
  if (isa<arith::MulIOp>(def)) {
    AxisInfo a = sub(def->getOperand(0)), b = sub(def->getOperand(1));
    return {1, std::min(a.constancy, b.constancy),
            std::min(kMaxDivisibility, a.divisibility * b.divisibility)};
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    AxisInfo a = sub(cmp.getLhs()), b = sub(cmp.getRhs());
    int64_t constancy = std::min(a.constancy, b.constancy);
    // x + i < B over a run starting at a multiple of d, with B a multiple of
    // d, does not change within aligned pieces of d.
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    if (p == P::slt || p == P::sge || p == P::ult || p == P::uge)
      constancy = std::max(constancy, std::min({a.contiguity, a.divisibility, b.constancy,
                                                b.divisibility}));
    return {1, constancy, 1};
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def)) {
    AxisInfo a = sub(def->getOperand(0)), b = sub(def->getOperand(1));
    return {1, std::min(a.constancy, b.constancy), 1};
  }
  return unknown();
}

namespace {
/// Per dimension, the step of an affine tile (see rowStep): a constant,
/// times a scalar value where `factors` has one (a symbolic size).
struct Steps {
  SmallVector<int64_t> constants;
  SmallVector<Value> factors;
  static Steps zero(int64_t rank) {
    return {SmallVector<int64_t>(rank, 0), SmallVector<Value>(rank, Value())};
  }
};

/// The scalar a splat (or `1 * x`) of a non-constant value stands for.
Value splatScalar(Value v) {
  if (auto splat = v.getDefiningOp<tt::SplatOp>())
    v = splat.getSrc();
  if (auto mul = v.getDefiningOp<arith::MulIOp>()) {
    APInt one;
    if (matchPattern(mul.getLhs(), m_ConstantInt(&one)) && one.isOne())
      return mul.getRhs();
    if (matchPattern(mul.getRhs(), m_ConstantInt(&one)) && one.isOne())
      return mul.getLhs();
  }
  return isa<RankedTensorType>(v.getType()) ? Value() : v;
}

std::optional<Steps> steps(Value v, int depth) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || depth > 32)
    return std::nullopt;
  Steps zero = Steps::zero(type.getRank());
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<tt::SplatOp>(def))
    return zero;
  DenseIntElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)))
    return dense.isSplat() ? std::optional(zero) : std::nullopt;
  if (isa<tt::MakeRangeOp>(def))
    return Steps{{1}, {Value()}};
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    auto in = steps(expand.getSrc(), depth + 1);
    if (in) {
      in->constants.insert(in->constants.begin() + expand.getAxis(), 0);
      in->factors.insert(in->factors.begin() + expand.getAxis(), Value());
    }
    return in;
  }
  if (auto broadcast = dyn_cast<tt::BroadcastOp>(def)) {
    // Dimensions of size 1 broadcast: their step is 0 (as an iota of one
    // element has).
    auto in = steps(broadcast.getSrc(), depth + 1);
    auto src = cast<RankedTensorType>(broadcast.getSrc().getType());
    if (in)
      for (int64_t d = 0; d < src.getRank(); ++d)
        if (src.getDimSize(d) == 1)
          in->constants[d] = 0, in->factors[d] = Value();
    return in;
  }
  if (isa<arith::AddIOp, tt::AddPtrOp>(def)) {
    auto a = steps(def->getOperand(0), depth + 1), b = steps(def->getOperand(1), depth + 1);
    if (!a || !b)
      return std::nullopt;
    for (size_t d = 0; d < a->constants.size(); ++d) {
      if (b->constants[d] == 0)
        continue;
      if (a->constants[d] == 0)
        a->factors[d] = b->factors[d];
      else if (a->factors[d] != b->factors[d])
        return std::nullopt; // steps in different units
      a->constants[d] += b->constants[d];
    }
    return a;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    for (auto [tile, other] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
      std::optional<int64_t> factor = splatIntConstant(other);
      if (!factor)
        continue;
      auto in = steps(tile, depth + 1);
      if (in)
        for (int64_t &x : in->constants)
          x *= *factor;
      return in;
    }
    // A tile times a scalar value: each step, once, in units of it.
    for (auto [tile, other] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
      Value scalar = splatScalar(other);
      if (!scalar)
        continue;
      auto in = steps(tile, depth + 1);
      if (!in)
        return std::nullopt;
      for (size_t d = 0; d < in->constants.size(); ++d) {
        if (in->constants[d] == 0)
          continue;
        if (in->factors[d])
          return std::nullopt;
        in->factors[d] = scalar;
      }
      return in;
    }
    return std::nullopt;
  }
  return std::nullopt;
}
} // namespace

std::optional<int64_t> mlir::pallas::cuda::splatIntConstant(Value v) {
  if (auto splat = v.getDefiningOp<tt::SplatOp>())
    v = splat.getSrc();
  APInt c; // (m_ConstantInt matches splat tensors too)
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

std::optional<int64_t> mlir::pallas::cuda::rowStep(Value v) {
  std::optional<RowStep> s = symbolicRowStep(v);
  if (!s || s->factor)
    return std::nullopt;
  return s->constant;
}

std::optional<RowStep> mlir::pallas::cuda::symbolicRowStep(Value v) {
  auto s = steps(v, 0);
  if (!s || s->constants.size() != 2)
    return std::nullopt;
  // A symbolic column step is no row of contiguous elements.
  if (s->factors[1])
    return std::nullopt;
  return RowStep{s->constants[0], s->factors[0]};
}
