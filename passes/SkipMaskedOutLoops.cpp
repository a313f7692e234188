//===- SkipMaskedOutLoops.cpp - no loop trips for programs that store nothing ===//
//
// A program whose every store is masked off writes nothing, and its loops
// compute nothing anyone sees. Grouped GEMMs over scalar-prefetched tables
// have such programs: the entries past the last row tile (padding to the
// grid's static size), whose mask `rows in [offsets[g], offsets[g + 1])`
// is empty. Where each store's mask is the intersection of comparisons of
// an index (iota plus a scalar) with scalars known before a loop, the set
// of indices it keeps is a box whose corners those scalars give; the loop
// then runs for no trips unless some store's box holds an index of its
// tile. (A dot over a whole K, streamed into a K loop by
// pallas-stream-dot-k, so costs a padding entry nothing, as a K loop the
// kernel wrote with a trip count of 0 would.)
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASSKIPMASKEDOUTLOOPS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// `plus - minus + constant`, scalars (either may be absent).
struct Bound {
  Value plus, minus;
  int64_t constant = 0;
};

/// A superset of the indices where a mask holds: per dim of its tile,
/// index i with every `lowers` <= i < every `uppers`, and every scalar
/// condition in `conds` true.
struct IndexBox {
  SmallVector<SmallVector<Bound>> lowers, uppers;
  SmallVector<Value> conds;
  explicit IndexBox(int64_t rank) : lowers(rank), uppers(rank) {}
  void intersect(const IndexBox &other) {
    for (size_t d = 0; d < lowers.size(); ++d) {
      llvm::append_range(lowers[d], other.lowers[d]);
      llvm::append_range(uppers[d], other.uppers[d]);
    }
    llvm::append_range(conds, other.conds);
  }
};

/// A scalar the tensor `v` holds everywhere (a broadcast scalar, or a
/// splat constant as `constant`).
static bool splatScalar(Value v, Value &scalar, int64_t &constant) {
  if (auto b = v.getDefiningOp<BroadcastOp>(); b && !isa<RankedTensorType>(b.getInput().getType())) {
    Type t = b.getInput().getType();
    if (!t.isSignlessInteger() || t.getIntOrFloatBitWidth() > 64)
      return false;
    APInt c;
    if (matchPattern(b.getInput(), m_ConstantInt(&c)))
      return constant = c.getSExtValue(), true;
    scalar = b.getInput();
    return true;
  }
  DenseIntElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat()) {
    constant = dense.getSplatValue<APInt>().getSExtValue();
    return true;
  }
  return false;
}

/// `v` as iota along `dim` plus `offset` (a scalar, maybe absent) plus
/// `constant`.
static bool indexExpr(Value v, int64_t &dim, Value &offset, int64_t &constant) {
  if (auto iota = v.getDefiningOp<IotaOp>()) {
    dim = iota.getDim();
    return true;
  }
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  for (auto [index, other] : {std::pair(add.getLhs(), add.getRhs()),
                              std::pair(add.getRhs(), add.getLhs())}) {
    Value s;
    int64_t c = 0;
    if (!splatScalar(other, s, c))
      continue;
    Value inner;
    int64_t innerConstant = 0;
    if (!indexExpr(index, dim, inner, innerConstant) || (s && inner))
      continue;
    offset = s ? s : inner;
    constant = c + innerConstant;
    return true;
  }
  return false;
}

/// The box of indices where the i1 tensor `mask` may hold; none where its
/// form is not one of those above.
static std::optional<IndexBox> boxOf(Value mask) {
  auto type = cast<RankedTensorType>(mask.getType());
  int64_t rank = type.getRank();
  IndexBox box(rank);
  if (auto b = mask.getDefiningOp<BroadcastOp>()) {
    if (!isa<RankedTensorType>(b.getInput().getType())) {
      box.conds.push_back(b.getInput());
      return box;
    }
    // A 1-D mask laid along one result dim (input dim 0 becomes result
    // dim dims[0], of the same size).
    auto inType = cast<RankedTensorType>(b.getInput().getType());
    if (inType.getRank() != 1 || inType.getDimSize(0) != type.getDimSize(b.getInputToResultDims()[0]))
      return std::nullopt;
    std::optional<IndexBox> in = boxOf(b.getInput());
    if (!in)
      return std::nullopt;
    int64_t to = b.getInputToResultDims()[0];
    box.lowers[to] = in->lowers[0];
    box.uppers[to] = in->uppers[0];
    box.conds = in->conds;
    return box;
  }
  if (auto a = mask.getDefiningOp<arith::AndIOp>()) {
    std::optional<IndexBox> l = boxOf(a.getLhs()), r = boxOf(a.getRhs());
    if (!l || !r)
      return std::nullopt;
    l->intersect(*r);
    return l;
  }
  if (auto c = mask.getDefiningOp<arith::CmpIOp>()) {
    // `index pred limit`, or `limit pred index` with the predicate mirrored.
    auto mirrored = [](arith::CmpIPredicate p) -> std::optional<arith::CmpIPredicate> {
      switch (p) {
      case arith::CmpIPredicate::slt: return arith::CmpIPredicate::sgt;
      case arith::CmpIPredicate::sle: return arith::CmpIPredicate::sge;
      case arith::CmpIPredicate::sgt: return arith::CmpIPredicate::slt;
      case arith::CmpIPredicate::sge: return arith::CmpIPredicate::sle;
      default: return std::nullopt;
      }
    };
    std::optional<arith::CmpIPredicate> swapped = mirrored(c.getPredicate());
    if (!swapped)
      return std::nullopt;
    for (auto [index, limit, pred] : {std::tuple(c.getLhs(), c.getRhs(), c.getPredicate()),
                                      std::tuple(c.getRhs(), c.getLhs(), *swapped)}) {
      int64_t dim = 0, constant = 0, limitConstant = 0;
      Value offset, limitScalar;
      if (!indexExpr(index, dim, offset, constant) ||
          !splatScalar(limit, limitScalar, limitConstant))
        continue;
      // index = i + offset + constant against limit: a bound on i of
      // limit - offset + (limitConstant - constant), maybe plus one.
      Bound bound{limitScalar, offset, limitConstant - constant};
      bool lower = pred == arith::CmpIPredicate::sgt || pred == arith::CmpIPredicate::sge;
      if (pred == arith::CmpIPredicate::sle || pred == arith::CmpIPredicate::sgt)
        ++bound.constant;
      (lower ? box.lowers : box.uppers)[dim].push_back(bound);
      return box;
    }
    return std::nullopt;
  }
  DenseIntElementsAttr dense;
  if (matchPattern(mask, m_Constant(&dense)) && dense.isSplat()) {
    if (!dense.getSplatValue<bool>())
      box.conds.push_back(Value()); // never
    return box;
  }
  return std::nullopt;
}

/// The scalars a box's bounds and conditions read.
static SmallVector<Value> scalarsOf(const IndexBox &box) {
  SmallVector<Value> out;
  for (auto *sides : {&box.lowers, &box.uppers})
    for (const SmallVector<Bound> &bounds : *sides)
      for (const Bound &b : bounds)
        for (Value v : {b.plus, b.minus})
          if (v)
            out.push_back(v);
  for (Value c : box.conds)
    if (c)
      out.push_back(c);
  return out;
}

/// Whether the scalar `v` is known before `at`: defined above it, or
/// computed by pure scalar ops from such values (a row tile's first row,
/// `m * 128`, computed after the loop), which `materialize` then copies.
static bool knownBefore(Value v, Operation *at, DominanceInfo &dominance, int depth = 0) {
  if (dominance.properlyDominates(v, at))
    return true;
  Operation *def = v.getDefiningOp();
  return def && depth < 8 && def->getNumRegions() == 0 && def->getNumResults() == 1 &&
         isMemoryEffectFree(def) && v.getType().isIntOrIndex() &&
         llvm::all_of(def->getOperands(),
                      [&](Value o) { return knownBefore(o, at, dominance, depth + 1); });
}

/// `v` at the builder's point (knownBefore held).
static Value materialize(OpBuilder &b, Value v, DominanceInfo &dominance, IRMapping &copies) {
  Operation *at = &*b.getInsertionPoint();
  if (dominance.properlyDominates(v, at))
    return v;
  if (Value copy = copies.lookupOrNull(v))
    return copy;
  Operation *def = v.getDefiningOp();
  for (Value o : def->getOperands())
    copies.map(o, materialize(b, o, dominance, copies));
  return b.clone(*def, copies)->getResult(0);
}

/// i1: whether `box` holds an index of a tile of `shape` (in i64, so that
/// no bound overflows).
static Value nonEmpty(OpBuilder &b, Location loc, const IndexBox &box, ArrayRef<int64_t> shape,
                      DominanceInfo &dominance, IRMapping &copies) {
  auto known = [&](Value v) { return materialize(b, v, dominance, copies); };
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v).getResult(); };
  auto wide = [&](Value v) -> Value {
    v = known(v);
    return v.getType() == i64 ? v : arith::ExtSIOp::create(b, loc, i64, v).getResult();
  };
  auto value = [&](const Bound &bound) {
    Value v = c64(bound.constant);
    if (bound.plus)
      v = arith::AddIOp::create(b, loc, v, wide(bound.plus));
    if (bound.minus)
      v = arith::SubIOp::create(b, loc, v, wide(bound.minus));
    return v;
  };
  Value all = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (box.lowers[d].empty() && box.uppers[d].empty())
      continue;
    Value lo = c64(0), hi = c64(shape[d]);
    for (const Bound &bound : box.lowers[d])
      lo = arith::MaxSIOp::create(b, loc, lo, value(bound));
    for (const Bound &bound : box.uppers[d])
      hi = arith::MinSIOp::create(b, loc, hi, value(bound));
    all = arith::AndIOp::create(
        b, loc, all, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lo, hi));
  }
  for (Value c : box.conds)
    all = arith::AndIOp::create(b, loc, all,
                                c ? known(c) : arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
  return all;
}

struct SkipMaskedOutLoopsPass
    : public pallas::impl::PallasSkipMaskedOutLoopsBase<SkipMaskedOutLoopsPass> {
  void runOnOperation() override {
    getOperation()->walk([](KernelOp kernel) { rewrite(kernel); });
  }

  static void rewrite(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    // Every write a store of the kernel's own block with a mask of known
    // form; everything else reads at most.
    SmallVector<std::pair<StoreOp, IndexBox>> stores;
    bool plain = true;
    kernel.getBody().walk([&](Operation *op) {
      if (auto store = dyn_cast<StoreOp>(op)) {
        std::optional<IndexBox> box;
        if (store->getBlock() == &body && store.getMask())
          box = boxOf(store.getMask());
        if (!box)
          plain = false;
        else
          stores.push_back({store, std::move(*box)});
        return;
      }
      if (isa<LoadOp>(op) || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isMemoryEffectFree(op))
        return;
      plain = false;
    });
    if (!plain || stores.empty())
      return;
    DominanceInfo dominance(kernel);
    for (scf::ForOp loop : llvm::make_early_inc_range(body.getOps<scf::ForOp>())) {
      bool known = llvm::all_of(stores, [&](auto &s) {
        return llvm::all_of(scalarsOf(s.second),
                            [&](Value v) { return knownBefore(v, loop, dominance); });
      });
      if (!known)
        continue;
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      Value live;
      IRMapping copies;
      for (auto &[store, box] : stores) {
        auto shape = cast<RankedTensorType>(store.getMask().getType()).getShape();
        Value any = nonEmpty(b, loc, box, shape, dominance, copies);
        live = live ? arith::OrIOp::create(b, loc, live, any).getResult() : any;
      }
      loop.getUpperBoundMutable().assign(
          arith::SelectOp::create(b, loc, live, loop.getUpperBound(), loop.getLowerBound()));
    }
  }
};

} // namespace
