//===- ChainScanFusion.cpp - a recomputing scan folded into another -------===//
//
// JAX's flash attention backward computes, in each program, dK and dV of
// one key block in a scan over query blocks (L1), then dQ of one query
// block in a second scan over key blocks (L2) that recomputes the same
// pairs' dS: seven matmuls per block pair where FlashAttention 2 and cuDNN
// need five. When L2's summand is dot(X2, B2) and X2 is, element for
// element, a value X1 that L1 computes, L1 adds dot(X1, B1) into a float32
// accumulator of the whole output (atomic adds, the accumulator shared by
// the programs along the axis L2's output is blocked by), and L2 goes.
//
// The proof that X1 and X2 are the same function of a (query row, key row)
// pair is structural: the two expressions are the same ops with the same
// attributes on the same refs, where each access of a ref is by the rows
// of one role - Q, the rows the output is blocked by, which L1's induction
// variable and L2's program id walk; K, the other rows, which L2's
// induction variable and L1's program id walk - or not by role at all.
// Every op is elementwise, a broadcast, or a dot contracting over dims
// that are not roles: no value mixes pairs, so blocking them otherwise
// (L1's blocks are not L2's) changes nothing of X. The two scans must
// cover the same pairs: L1 all query rows for each program's key block,
// L2 all key rows for each program's query block, and the programs all
// rows of each; and every grid axis picks the output's block, so that
// each pair is added once.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/ChainScanFusion.h"
#include "pallas/Driver/Compile.h"
#include "pallas/Dialect/Indexers.h"
#include "pallas/Dialect/Pallas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::pallas;
using nlohmann::json;

namespace {

/// The rows a dim of a value walks.
enum class Role : uint8_t {
  Any,  ///< constant along the dim (a splat, a broadcast's new dim): any size
  Free, ///< neither role: the same size in both scans
  Q,    ///< the rows the fused output is blocked by
  K,    ///< the rows its sum runs over
};
using Roles = SmallVector<Role, 4>;

/// One of the two scans.
struct Scan {
  scf::ForOp loop;
  Role ivRole;          ///< the rows its induction variable walks
  Role pidRole;         ///< the rows the program id walks
  int64_t rows[4] = {}; ///< rows per block, by role (Q, K)
  Value qOffset;        ///< the start of its Q rows (iv or pid times rows)
};

/// Matches an expression of L2 against one of L1 (see the file comment).
class PairMatcher {
public:
  PairMatcher(Scan &l2, Scan &l1) : l2(l2), l1(l1) {}

  bool match(Value v2, Value v1, unsigned depth = 0);
  const Roles *rolesOf(Value v2) const {
    auto it = roles.find(v2);
    return it == roles.end() ? nullptr : &it->second;
  }
  Value counterpart(Value v2) const { return map.lookup(v2); }
  int64_t axis = -1; ///< the grid axis whose program id walks rows
  SmallVector<Value> refs; ///< every ref accessed
  /// L2's values holding each element's absolute row of a role
  /// (broadcast(offset) + iota, and broadcasts of those): causal masks.
  DenseMap<Value, Role> positions;

private:
  bool matchOp(Operation *o2, Operation *o1, Roles &out, unsigned depth);
  bool matchLoad(LoadOp l2op, LoadOp l1op, Roles &out, unsigned depth);
  std::optional<bool> matchPositions(arith::AddIOp a, arith::AddIOp b, Roles &out);
  std::optional<Role> offsetRole(Scan &scan, Value v, int64_t size);
  bool sizesAgree(Value v2, Value v1, const Roles &r);

  Scan &l2, &l1;
  DenseMap<Value, Value> map;
  DenseMap<Value, Roles> roles;
};

int64_t rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return 0;
}

/// A value made of constants and iotas alone (the same in every program
/// and every iteration).
bool isConstantLike(Value v, unsigned depth = 0) {
  Operation *op = v.getDefiningOp();
  if (!op || depth > 64 || op->getNumRegions() != 0 || !isPure(op))
    return false;
  if (isa<ProgramIdOp>(op))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value o) { return isConstantLike(o, depth + 1); });
}

std::optional<Role> PairMatcher::offsetRole(Scan &scan, Value v, int64_t size) {
  auto mul = v.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<int64_t> rows = getConstantIntValue(c);
    if (!rows || *rows != size)
      continue;
    Role role;
    if (x == scan.loop.getInductionVar()) {
      role = scan.ivRole;
    } else if (auto pid = x.getDefiningOp<ProgramIdOp>()) {
      if (axis >= 0 && axis != int64_t(pid.getAxis()))
        return std::nullopt;
      axis = pid.getAxis();
      role = scan.pidRole;
    } else {
      continue;
    }
    int64_t &known = scan.rows[int(role)];
    if (known && known != size)
      return std::nullopt;
    known = size;
    if (role == Role::Q)
      scan.qOffset = v;
    return role;
  }
  return std::nullopt;
}

bool PairMatcher::sizesAgree(Value v2, Value v1, const Roles &r) {
  auto t2 = dyn_cast<RankedTensorType>(v2.getType());
  auto t1 = dyn_cast<RankedTensorType>(v1.getType());
  if (!t2 || !t1)
    return v2.getType() == v1.getType();
  if (t2.getElementType() != t1.getElementType() || t2.getRank() != t1.getRank() ||
      int64_t(r.size()) != t2.getRank())
    return false;
  for (auto [d, role] : llvm::enumerate(r)) {
    int64_t s2 = t2.getDimSize(d), s1 = t1.getDimSize(d);
    if (role == Role::Free && s2 != s1)
      return false;
    if ((role == Role::Q || role == Role::K) &&
        (s2 != l2.rows[int(role)] || s1 != l1.rows[int(role)]))
      return false;
  }
  return true;
}

bool PairMatcher::match(Value v2, Value v1, unsigned depth) {
  if (auto it = map.find(v2); it != map.end())
    return it->second == v1;
  // Deep expressions are not what this looks for (and must not exhaust
  // the stack).
  if (depth > 128)
    return false;
  Roles r;
  {
    // (A value both use, a mask made of iotas, is matched with itself.)
    Operation *o2 = v2.getDefiningOp(), *o1 = v1.getDefiningOp();
    if (!o2 || !o1 || o2->getName() != o1->getName() || o2->getNumResults() != 1 ||
        o1->getNumResults() != 1 || o2->getNumOperands() != o1->getNumOperands() ||
        o2->getNumRegions() != 0 || o1->getNumRegions() != 0)
      return false;
    // What L1 computes must be there in L1's body (or before the loop).
    bool inBody = o1->getBlock() == l1.loop.getBody();
    bool before = o1->getBlock() == l1.loop->getBlock() && o1->isBeforeInBlock(l1.loop);
    if (!inBody && !before)
      return false;
    if (!matchOp(o2, o1, r, depth))
      return false;
  }
  if (!sizesAgree(v2, v1, r))
    return false;
  map[v2] = v1;
  roles[v2] = std::move(r);
  return true;
}

/// `a` merged into `b`, dim by dim; false where two roles disagree.
bool mergeRoles(Roles &into, const Roles &from) {
  if (into.size() != from.size())
    return false;
  for (auto [a, b] : llvm::zip(into, from)) {
    if (a == Role::Any)
      a = b;
    else if (b != Role::Any && a != b)
      return false;
  }
  return true;
}

bool PairMatcher::matchOp(Operation *o2, Operation *o1, Roles &out, unsigned depth) {
  Value v2 = o2->getResult(0);
  if (auto c2 = dyn_cast<arith::ConstantOp>(o2)) {
    auto c1 = cast<arith::ConstantOp>(o1);
    auto d2 = dyn_cast<DenseElementsAttr>(c2.getValue());
    auto d1 = dyn_cast<DenseElementsAttr>(c1.getValue());
    if (d2 || d1) {
      if (!d2 || !d1 || !d2.isSplat() || !d1.isSplat() ||
          d2.getSplatValue<Attribute>() != d1.getSplatValue<Attribute>())
        return false;
    } else if (c2.getValue() != c1.getValue()) {
      return false;
    }
    out.assign(rankOf(v2), Role::Any);
    return true;
  }
  if (auto load2 = dyn_cast<LoadOp>(o2))
    return matchLoad(load2, cast<LoadOp>(o1), out, depth);
  if (auto add2 = dyn_cast<arith::AddIOp>(o2))
    if (std::optional<bool> matched = matchPositions(add2, cast<arith::AddIOp>(o1), out))
      return *matched;
  if (o2->getAttrDictionary() != o1->getAttrDictionary() || !isPure(o2))
    return false;
  if (isa<IotaOp>(o2)) {
    // Positions within the block: the same only where the block is.
    out.assign(rankOf(v2), Role::Free);
    return true;
  }
  for (auto [a2, a1] : llvm::zip(o2->getOperands(), o1->getOperands()))
    if (!match(a2, a1, depth + 1))
      return false;
  if (auto b = dyn_cast<BroadcastOp>(o2)) {
    const Roles &in = *rolesOf(b.getInput());
    auto inType = dyn_cast<RankedTensorType>(b.getInput().getType());
    int64_t rank = rankOf(v2);
    out.assign(rank, Role::Any);
    SmallVector<int64_t> dims;
    if (std::optional<ArrayRef<int64_t>> given = b.getDims())
      dims.assign(given->begin(), given->end());
    else
      for (int64_t i = 0; i < int64_t(in.size()); ++i)
        dims.push_back(rank - int64_t(in.size()) + i);
    if (dims.size() != in.size())
      return false;
    for (auto [i, d] : llvm::enumerate(dims)) {
      if (d < 0 || d >= rank)
        return false;
      // A size-1 dim broadcast is constant along its result dim.
      if (inType && inType.getDimSize(i) == 1 &&
          cast<RankedTensorType>(v2.getType()).getDimSize(d) != 1)
        continue;
      out[d] = in[i];
    }
    if (auto p = positions.find(b.getInput()); p != positions.end() && in.size() == 1)
      positions[v2] = p->second;
    return true;
  }
  if (auto dot2 = dyn_cast<DotOp>(o2)) {
    Roles lhs = *rolesOf(dot2.getLhs()), rhs = *rolesOf(dot2.getRhs());
    if (lhs.size() != 2 || rhs.size() != 2)
      return false;
    if (dot2.getTransposeLhs())
      std::swap(lhs[0], lhs[1]);
    if (dot2.getTransposeRhs())
      std::swap(rhs[0], rhs[1]);
    // Contracting over a role would sum over pairs.
    auto rowsOnly = [](Role r) { return r == Role::Q || r == Role::K; };
    if (rowsOnly(lhs[1]) || rowsOnly(rhs[0]))
      return false;
    // ... over the same number of elements in both scans.
    auto t2 = cast<RankedTensorType>(dot2.getLhs().getType());
    auto t1 = cast<RankedTensorType>(cast<DotOp>(o1).getLhs().getType());
    int cdim = dot2.getTransposeLhs() ? 0 : 1;
    if (t2.getDimSize(cdim) != t1.getDimSize(cdim))
      return false;
    out = {lhs[0], rhs[1]};
    if (dot2.getAcc() && !mergeRoles(out, *rolesOf(dot2.getAcc())))
      return false;
    return true;
  }
  if (o2->hasTrait<OpTrait::Elementwise>()) {
    out.assign(rankOf(v2), Role::Any);
    for (Value a : o2->getOperands())
      if (rankOf(a) == rankOf(v2) && !mergeRoles(out, *rolesOf(a)))
        return false;
    return true;
  }
  return false;
}

/// `broadcast(offset) + iota(0)` (either order) of a 1-D tensor: its
/// offset and length; nullopt for other adds.
std::optional<std::pair<Value, int64_t>> positionsOf(arith::AddIOp add) {
  auto type = dyn_cast<RankedTensorType>(add.getType());
  if (!type || type.getRank() != 1)
    return std::nullopt;
  for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    auto b = x.getDefiningOp<BroadcastOp>();
    auto iota = y.getDefiningOp<IotaOp>();
    if (b && iota && iota.getDim() == 0 && !isa<ShapedType>(b.getInput().getType()))
      return std::pair(b.getInput(), type.getDimSize(0));
  }
  return std::nullopt;
}

std::optional<bool> PairMatcher::matchPositions(arith::AddIOp a, arith::AddIOp b, Roles &out) {
  std::optional<std::pair<Value, int64_t>> pa = positionsOf(a), pb = positionsOf(b);
  if (!pa || !pb)
    return std::nullopt; // an add like any other
  std::optional<Role> ra = offsetRole(l2, pa->first, pa->second);
  std::optional<Role> rb = offsetRole(l1, pb->first, pb->second);
  if (!ra || !rb || *ra != *rb)
    return false;
  out = {*ra};
  positions[a.getResult()] = *ra;
  return true;
}

bool PairMatcher::matchLoad(LoadOp a, LoadOp b, Roles &out, unsigned depth) {
  if (a.getRef() != b.getRef() || !isa<BlockArgument>(a.getRef()))
    return false;
  auto refType = cast<RefType>(a.getRef().getType());
  IndexerList ia = IndexerList::decode(a.getIndexers()).expandedFor(refType.getRank());
  IndexerList ib = IndexerList::decode(b.getIndexers()).expandedFor(refType.getRank());
  if (ia.get().size() != ib.get().size())
    return false;
  auto operandsA = a.getIndices(), operandsB = b.getIndices();
  unsigned next = 0;
  for (auto [x, y] : llvm::zip(ia.get(), ib.get())) {
    if (x.kind != y.kind || x.stride != 1 || y.stride != 1)
      return false;
    switch (x.kind) {
    case IndexerKind::Scalar: {
      Value p = operandsA[next], q = operandsB[next];
      ++next;
      std::optional<int64_t> cp = getConstantIntValue(p), cq = getConstantIntValue(q);
      if (!(p == q && isConstantLike(p)) && !(cp && cq && *cp == *cq))
        return false;
      break;
    }
    case IndexerKind::ScalarConst:
      if (x.start != y.start)
        return false;
      break;
    case IndexerKind::Slice: {
      std::optional<Role> ra = offsetRole(l2, operandsA[next], x.size);
      std::optional<Role> rb = offsetRole(l1, operandsB[next], y.size);
      ++next;
      if (!ra || !rb || *ra != *rb)
        return false;
      out.push_back(*ra);
      break;
    }
    case IndexerKind::SliceConst:
      if (x.start != y.start || x.size != y.size)
        return false;
      out.push_back(Role::Free);
      break;
    case IndexerKind::Full:
      out.push_back(Role::Free);
      break;
    case IndexerKind::Tensor:
      return false;
    }
  }
  if (bool(a.getMask()) != bool(b.getMask()) || bool(a.getOther()) != bool(b.getOther()))
    return false;
  if (a.getMask() && !match(a.getMask(), b.getMask(), depth + 1))
    return false;
  if (a.getOther() && !match(a.getOther(), b.getOther(), depth + 1))
    return false;
  // A masked load keeps the roles its mask has.
  if (a.getMask() && !mergeRoles(out, *rolesOf(a.getMask())))
    return false;
  if (!llvm::is_contained(refs, a.getRef()))
    refs.push_back(a.getRef());
  return true;
}

/// A mask that is true everywhere: `iota(d) < C` with C at least the
/// dim's size, broadcast, or a splat true.
bool isAllTrue(Value m, unsigned depth = 0) {
  if (!m)
    return true;
  if (auto b = m.getDefiningOp<BroadcastOp>())
    return depth < 16 && isAllTrue(b.getInput(), depth + 1);
  if (auto c = m.getDefiningOp<arith::ConstantOp>()) {
    auto d = dyn_cast<DenseElementsAttr>(c.getValue());
    return d && d.isSplat() && d.getSplatValue<bool>();
  }
  auto cmp = m.getDefiningOp<arith::CmpIOp>();
  if (!cmp || (cmp.getPredicate() != arith::CmpIPredicate::slt &&
               cmp.getPredicate() != arith::CmpIPredicate::ult))
    return false;
  auto iota = cmp.getLhs().getDefiningOp<IotaOp>();
  auto bound = cmp.getRhs().getDefiningOp<arith::ConstantOp>();
  if (!iota || !bound)
    return false;
  auto d = dyn_cast<DenseElementsAttr>(bound.getValue());
  if (!d || !d.isSplat())
    return false;
  int64_t limit = d.getSplatValue<APInt>().getSExtValue();
  return limit >= cast<RankedTensorType>(iota.getType()).getDimSize(iota.getDim());
}

/// `v` where the program id along `axis` is `pid`: integer constants and
/// arithmetic of them (a scan's bounds), or nullopt.
std::optional<int64_t> valueAt(Value v, int64_t axis, int64_t pid, unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 32)
    return std::nullopt;
  if (auto id = dyn_cast<ProgramIdOp>(op))
    return int64_t(id.getAxis()) == axis ? std::optional<int64_t>(pid) : std::nullopt;
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(op))
    return valueAt(op->getOperand(0), axis, pid, depth + 1);
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> x = valueAt(op->getOperand(0), axis, pid, depth + 1);
  std::optional<int64_t> y = valueAt(op->getOperand(1), axis, pid, depth + 1);
  // (Operands are below 2^31 times small factors: no overflow here.)
  if (!x || !y || std::abs(*x) > (1ll << 40) || std::abs(*y) > (1ll << 40))
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return *x + *y;
  if (isa<arith::SubIOp>(op))
    return *x - *y;
  if (isa<arith::MulIOp>(op))
    return *x * *y;
  if (*y == 0)
    return std::nullopt;
  if (isa<arith::DivSIOp>(op)) // rounds toward zero
    return *x / *y;
  if (isa<arith::FloorDivSIOp>(op))
    return *x / *y - ((*x % *y != 0) && ((*x < 0) != (*y < 0)));
  if (isa<arith::CeilDivSIOp>(op))
    return *x / *y + ((*x % *y != 0) && ((*x < 0) == (*y < 0)));
  if (isa<arith::RemSIOp>(op))
    return *x % *y;
  return std::nullopt;
}

/// A scan's rows of its role in the program `pid`: [lower, upper) blocks
/// of `rows` each (empty where the bounds cross), or nullopt where its
/// bounds are not known or its step is not 1.
std::optional<std::pair<int64_t, int64_t>> scannedRows(scf::ForOp loop, int64_t axis,
                                                       int64_t pid, int64_t rows) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  std::optional<int64_t> lb = valueAt(loop.getLowerBound(), axis, pid);
  std::optional<int64_t> ub = valueAt(loop.getUpperBound(), axis, pid);
  if (!step || *step != 1 || !lb || !ub)
    return std::nullopt;
  if (*ub <= *lb)
    return std::pair<int64_t, int64_t>(0, 0);
  return std::pair(*lb * rows, *ub * rows);
}

/// How the pairs a kernel's scans reduce are masked: pairs whose query
/// row q and key row k have q >= k + offset count; the others contribute
/// exactly zero. None: every pair counts.
struct CausalMask {
  int64_t offset = 0;
};

/// `x` is zero wherever `p` is (a product of it: truncations, extensions
/// and multiplications).
bool hasFactor(Value x, Value p, unsigned depth = 0) {
  if (x == p)
    return true;
  Operation *op = x.getDefiningOp();
  if (!op || depth > 16)
    return false;
  if (isa<arith::TruncFOp, arith::ExtFOp>(op))
    return hasFactor(op->getOperand(0), p, depth + 1);
  if (isa<arith::MulFOp>(op))
    return hasFactor(op->getOperand(0), p, depth + 1) || hasFactor(op->getOperand(1), p, depth + 1);
  return false;
}

/// A fill that exp2 or exp takes to zero less any finite statistic: a
/// splat (or broadcast scalar) of -1e30 or below.
bool isMaskFill(Value v) {
  if (auto b = v.getDefiningOp<BroadcastOp>())
    v = b.getInput();
  auto c = v.getDefiningOp<arith::ConstantOp>();
  if (!c)
    return false;
  APFloat value(0.0f);
  if (auto d = dyn_cast<DenseElementsAttr>(c.getValue()); d && d.isSplat() &&
                                                         isa<FloatType>(d.getElementType()))
    value = d.getSplatValue<APFloat>();
  else if (auto f = dyn_cast<FloatAttr>(c.getValue()))
    value = f.getValue();
  else
    return false;
  bool lost;
  value.convert(APFloat::IEEEdouble(), llvm::RoundingMode::NearestTiesToEven, &lost);
  return value.convertToDouble() <= -1e30;
}

/// The causal mask of `x` (L2's pair value): x is a product of
/// exp2(select(q >= k + offset, s, fill) - r) (or exp), fill at most
/// -1e30: zero, for the finite row statistics r that the kernel's own
/// scans assume (they skip different masked blocks). Positions are
/// `matcher`'s. nullopt: no such mask (or one this does not know).
std::optional<CausalMask> causalMaskOf(Value x, const DenseMap<Value, Role> &positions) {
  SmallVector<Value> work = {x};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second || seen.size() > 256)
      continue;
    for (Value o : op->getOperands())
      work.push_back(o);
    if (!isa<math::Exp2Op, math::ExpOp>(op) || !hasFactor(x, op->getResult(0)))
      continue;
    auto sub = op->getOperand(0).getDefiningOp<arith::SubFOp>();
    auto select = sub ? sub.getLhs().getDefiningOp<arith::SelectOp>() : nullptr;
    auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
    if (!cmp || !isMaskFill(select.getFalseValue()))
      continue;
    auto a = positions.find(cmp.getLhs()), b = positions.find(cmp.getRhs());
    if (a == positions.end() || b == positions.end() || a->second == b->second)
      continue;
    bool qFirst = a->second == Role::Q;
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::sge: // q >= k, or k >= q
      if (qFirst)
        return CausalMask{0};
      break;
    case P::sgt:
      if (qFirst)
        return CausalMask{1};
      break;
    case P::sle: // k <= q
      if (!qFirst)
        return CausalMask{0};
      break;
    case P::slt:
      if (!qFirst)
        return CausalMask{1};
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

/// An index map as the spec writes it: "(i, j, k) -> (i, k, j, 0)".
struct IndexMap {
  SmallVector<std::string> params, results;
  static std::optional<IndexMap> parse(const json &text) {
    if (!text.is_string())
      return std::nullopt;
    StringRef s = text.get_ref<const std::string &>();
    auto [lhs, rhs] = s.split("->");
    auto list = [](StringRef part, SmallVector<std::string> &out) {
      part = part.trim();
      if (!part.consume_front("(") || !part.consume_back(")"))
        return false;
      SmallVector<StringRef> items;
      part.split(items, ',');
      for (StringRef item : items) {
        item = item.trim();
        if (item.empty() || !llvm::all_of(item, [](char c) { return isalnum(c) || c == '_'; }))
          return false;
        out.push_back(item.str());
      }
      return true;
    };
    IndexMap m;
    if (rhs.empty() || !list(lhs, m.params) || !list(rhs, m.results))
      return std::nullopt;
    return m;
  }
  std::string print() const {
    return "(" + llvm::join(params, ", ") + ") -> (" + llvm::join(results, ", ") + ")";
  }
};

/// Sizes and grid extents as the rewrite multiplies them: integers in
/// [0, 2^31), so that no product of two overflows.
bool isIntArray(const json &v) {
  return v.is_array() && llvm::all_of(v, [](const json &d) {
           return d.is_number_integer() && d.get<int64_t>() >= 0 && d.get<int64_t>() < (1ll << 31);
         });
}

/// The spec is a plain pallas_call's: a static grid, operands with
/// shapes, blocks and index maps, nothing else that the rewrite would
/// have to carry.
bool plainSpec(const json &spec) {
  static const char *kKeys[] = {"kernel", "name", "grid", "inputs", "outputs",
                                "input_output_aliases", "compiler_params"};
  if (!spec.is_object() || !isIntArray(spec.value("grid", json())) || !spec.contains("inputs") ||
      !spec["inputs"].is_array() || !spec.contains("outputs") || !spec["outputs"].is_array() ||
      !spec.value("name", json()).is_string())
    return false;
  for (auto &[key, _] : spec.items())
    if (!llvm::is_contained(kKeys, key))
      return false;
  for (const char *list : {"inputs", "outputs"})
    for (const json &o : spec[list]) {
      if (!o.is_object() || !isIntArray(o.value("shape", json())) ||
          !o.value("block_shape", json()).is_array() || !o.value("dtype", json()).is_string() ||
          !IndexMap::parse(o.value("index_map", json())))
        return false;
      for (auto &[key, value] : o.items())
        if ((key != "name" && key != "shape" && key != "dtype" && key != "block_shape" &&
             key != "index_map") ||
            (key == "name" && !value.is_string()))
          return false;
      for (const json &d : o["block_shape"])
        if (!d.is_null() && !isIntArray(json::array({d})))
          return false;
    }
  return true;
}

std::string printed(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  os << "\n";
  return text;
}

/// The kernels around a fused one, into `fused` (zeroKernel, castKernel),
/// named BASE_zero and BASE_cast, on blocks of type `outType`: zeros in
/// float32, and the float32 sum through `post` (the ops that took the
/// removed scan's result `scanResult` to the value stored, `stored`).
void sideKernels(Location loc, const std::string &base, RefType outType, Value scanResult,
                 ArrayRef<Operation *> post, Value stored, ScanFusion &fused) {
  MLIRContext *ctx = loc.getContext();
  OpBuilder b(ctx);
  auto blockType = RankedTensorType::get(outType.getShape(), Float32Type::get(ctx));
  auto inType =
      RefType::get(ctx, outType.getShape(), Float32Type::get(ctx), outType.getMemorySpace());
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto zeroKernel = KernelOp::create(b, loc, base + "_zero", b.getFunctionType({inType}, {}));
  Block *zb = b.createBlock(&zeroKernel.getBody(), {}, {inType}, {loc});
  Value zeros = arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(blockType)));
  StoreOp::create(b, loc, zb->getArgument(0), zeros);
  ReturnOp::create(b, loc);
  fused.zeroKernel = printed(zeroKernel);

  b.setInsertionPointToEnd(module->getBody());
  auto castKernel =
      KernelOp::create(b, loc, base + "_cast", b.getFunctionType({inType, outType}, {}));
  Block *cb = b.createBlock(&castKernel.getBody(), {}, {inType, outType}, {loc, loc});
  IRMapping mapping;
  mapping.map(scanResult, LoadOp::create(b, loc, cb->getArgument(0)).getResult());
  for (Operation *op : post) {
    for (Value o : op->getOperands()) // (constants)
      if (!mapping.contains(o))
        mapping.map(o, b.clone(*o.getDefiningOp())->getResult(0));
    b.clone(*op, mapping);
  }
  StoreOp::create(b, loc, cb->getArgument(1), mapping.lookup(stored));
  ReturnOp::create(b, loc);
  fused.castKernel = printed(castKernel);
}

/// The fusion of one output (its store `store`), or nullopt.
struct Fuser {
  KernelOp kernel;
  const json &spec;
  size_t numInputs;

  std::optional<ScanFusion> tryOutput(size_t output);
};

std::optional<ScanFusion> Fuser::tryOutput(size_t output) {
  Block &body = kernel.getBody().front();
  BlockArgument outRef = body.getArgument(numInputs + output);
  const json &outSpec = spec["outputs"][output];
  if (!outRef.hasOneUse())
    return std::nullopt;
  auto store = dyn_cast<StoreOp>(*outRef.getUsers().begin());
  if (!store || store->getBlock() != &body || store.getRef() != outRef ||
      !isAllTrue(store.getMask()))
    return std::nullopt;
  IndexerList stored = IndexerList::decode(store.getIndexers());
  if (!stored.isWhole() &&
      !llvm::all_of(stored.get(), [](const Indexer &i) { return i.kind == IndexerKind::Full; }))
    return std::nullopt;

  // The stored value: L2's result through elementwise ops of it and
  // constants (a cast, a scale), which the cast kernel will apply.
  SmallVector<Operation *> post;
  Value v = store.getValue();
  scf::ForOp l2;
  while (true) {
    if (auto loop = v.getDefiningOp<scf::ForOp>()) {
      l2 = loop;
      break;
    }
    Operation *op = v.getDefiningOp();
    if (!op || op->getNumResults() != 1 || !op->hasTrait<OpTrait::Elementwise>() || !isPure(op) ||
        post.size() > 8)
      return std::nullopt;
    Value chained;
    for (Value o : op->getOperands()) {
      if (o.getDefiningOp<arith::ConstantOp>())
        continue;
      if (chained)
        return std::nullopt;
      chained = o;
    }
    auto from = chained ? dyn_cast<ShapedType>(chained.getType()) : nullptr;
    auto to = dyn_cast<ShapedType>(v.getType());
    if (!from || !to || !chained.hasOneUse() || from.getShape() != to.getShape())
      return std::nullopt;
    post.push_back(op);
    v = chained;
  }
  std::reverse(post.begin(), post.end());
  if (l2->getBlock() != &body || l2.getNumResults() != 1 || !v.hasOneUse())
    return std::nullopt;
  // L2: acc = 0; acc += dot(X2, B2); nothing else written.
  auto init = l2.getInitArgs()[0].getDefiningOp<arith::ConstantOp>();
  auto zero = init ? dyn_cast<DenseElementsAttr>(init.getValue()) : nullptr;
  if (!zero || !zero.isSplat() || !zero.getElementType().isF32() ||
      !zero.getSplatValue<APFloat>().isZero())
    return std::nullopt;
  bool writes = false;
  l2.getBody()->walk([&](Operation *op) {
    if (!isPure(op) && !isa<LoadOp>(op))
      writes = true;
  });
  if (writes)
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(l2.getBody()->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value acc = l2.getRegionIterArgs()[0];
  Value summand = add.getLhs() == acc ? add.getRhs() : add.getRhs() == acc ? add.getLhs() : Value();
  auto dot2 = summand ? summand.getDefiningOp<DotOp>() : nullptr;
  if (!dot2 || dot2.getAcc() || dot2.getTransposeLhs() || dot2.getTransposeRhs() ||
      !summand.hasOneUse() || acc.getNumUses() != 1)
    return std::nullopt;
  Value x2 = dot2.getLhs(), b2 = dot2.getRhs();

  // L1: another scan of the kernel's body; X1 among its values.
  for (scf::ForOp l1 : body.getOps<scf::ForOp>()) {
    if (l1 == l2)
      continue;
    for (Operation &op : l1.getBody()->without_terminator()) {
      if (op.getName() != x2.getDefiningOp()->getName() || op.getNumResults() != 1)
        continue;
      Scan s2{l2, Role::K, Role::Q, {}, Value()}, s1{l1, Role::Q, Role::K, {}, Value()};
      PairMatcher m(s2, s1);
      if (!m.match(x2, op.getResult(0)) || !m.counterpart(b2))
        continue;
      const Roles *rx = m.rolesOf(x2), *rb = m.rolesOf(b2);
      if (!rx || !rb || *rx != Roles{Role::Q, Role::K} ||
          (*rb)[0] != Role::K || (*rb)[1] == Role::Q || (*rb)[1] == Role::K || m.axis < 0 ||
          !s1.qOffset)
        continue;

      // The grid, the output's blocks and the pairs each scan covers.
      const json &grid = spec["grid"];
      if (m.axis >= int64_t(grid.size()))
        continue;
      int64_t programs = grid[m.axis].get<int64_t>();
      std::optional<IndexMap> outMap = IndexMap::parse(outSpec["index_map"]);
      if (!outMap || outMap->params.size() != grid.size())
        continue;
      const std::string &axisName = outMap->params[m.axis];
      // Every grid axis picks the output's block, each by itself.
      bool bijective = outMap->results.size() == outSpec["shape"].size();
      for (const std::string &p : outMap->params)
        bijective &= llvm::count(outMap->results, p) == 1;
      for (const std::string &r : outMap->results)
        bijective &= llvm::is_contained(outMap->params, r) || r == "0";
      if (!bijective)
        continue;
      size_t rowDim = llvm::find(outMap->results, axisName) - outMap->results.begin();
      const json &block = outSpec["block_shape"];
      if (block.size() != outMap->results.size() || !block[rowDim].is_number_integer())
        continue;
      // The row dim must be the kernel's first (dot(X, B)'s rows).
      size_t kernelRowDim = 0;
      for (size_t d = 0; d < rowDim; ++d)
        kernelRowDim += !block[d].is_null();
      auto outType = cast<RefType>(outRef.getType());
      int64_t rowsQ = outSpec["shape"][rowDim].get<int64_t>();
      int64_t rowsK = programs * s1.rows[int(Role::K)];
      if (kernelRowDim != 0 || outType.getRank() != 2 || !outType.hasStaticShape() ||
          block[rowDim].get<int64_t>() != s2.rows[int(Role::Q)] ||
          programs * s2.rows[int(Role::Q)] != rowsQ)
        continue;
      // Each scan takes every pair that counts once, and no row outside
      // the arrays: L1 the query rows of its program's key rows, L2 the
      // key rows of its program's query rows.
      std::optional<CausalMask> mask = causalMaskOf(x2, m.positions);
      bool covered = true;
      for (int64_t pid = 0; covered && pid < programs; ++pid) {
        auto r1 = scannedRows(l1, m.axis, pid, s1.rows[int(Role::Q)]);
        auto r2 = scannedRows(l2, m.axis, pid, s2.rows[int(Role::K)]);
        // The rows that count: all, or those a causal mask keeps.
        int64_t needQ = 0, needK = rowsK;
        if (mask) {
          needQ = pid * s1.rows[int(Role::K)] + mask->offset;
          needK = std::min(rowsK, (pid + 1) * s2.rows[int(Role::Q)] - mask->offset);
        }
        covered = r1 && r2 && r1->second <= rowsQ && r2->second <= rowsK && r1->first >= 0 &&
                  r2->first >= 0 && (needQ >= rowsQ || (r1->first <= needQ && r1->second == rowsQ)) &&
                  (needK <= 0 || (r2->first == 0 && r2->second >= needK));
      }
      if (!covered)
        continue;
      auto dotType = cast<RankedTensorType>(summand.getType());
      if (!dotType.getElementType().isF32() || dotType.getShape() != outType.getShape())
        continue;
      // The refs read are the same blocks in every program along the axis,
      // and nothing writes them (an input aliased to an output is written).
      bool sameBlocks = true;
      for (Value ref : m.refs) {
        unsigned arg = cast<BlockArgument>(ref).getArgNumber();
        if (arg >= numInputs || (spec.contains("input_output_aliases") &&
                                 spec["input_output_aliases"].contains(std::to_string(arg)))) {
          sameBlocks = false;
          break;
        }
        std::optional<IndexMap> map = IndexMap::parse(spec["inputs"][arg]["index_map"]);
        sameBlocks &= map && !llvm::is_contained(map->results, map->params[m.axis]);
      }
      if (!sameBlocks)
        continue;

      // The accumulator: the output's array in f32, a block of all its
      // rows per program, the same for every program along the axis.
      std::string outName = outSpec.value("name", "out" + std::to_string(output));
      json accBlock = block;
      accBlock[rowDim] = rowsQ;
      IndexMap accMap = *outMap;
      accMap.results[rowDim] = "0";
      json accSpec = {{"name", outName + "_acc"},
                      {"shape", outSpec["shape"]},
                      {"dtype", "f32"},
                      {"block_shape", accBlock},
                      {"index_map", accMap.print()}};
      json accInSpec = accSpec;
      accInSpec["name"] = outName + "_acc_in";
      MLIRContext *ctx = kernel->getContext();
      SmallVector<int64_t> accShape(outType.getShape());
      accShape[0] = rowsQ;
      auto accType = RefType::get(ctx, accShape, Float32Type::get(ctx), outType.getMemorySpace());

      ScanFusion fused;
      fused.output = output;
      fused.stepRows = s1.rows[int(Role::Q)];
      fused.width = outType.getShape()[1];
      std::string name = spec["name"].get<std::string>();

      // The zero and cast kernels, on the output's own blocks and grid.
      sideKernels(kernel.getLoc(), name + "_" + outName, outType, v, post, store.getValue(),
                  fused);
      json accBlocked = {{"name", outName + "_acc"},
                         {"shape", outSpec["shape"]},
                         {"dtype", "f32"},
                         {"block_shape", block},
                         {"index_map", outSpec["index_map"]}};
      fused.zeroSpec = {{"kernel", name + "_" + outName + "_zero"},
                        {"name", name + "_" + outName + "_zero"},
                        {"grid", grid},
                        {"inputs", json::array()},
                        {"outputs", json::array({accBlocked})}};
      json castIn = accBlocked;
      fused.castSpec = {{"kernel", name + "_" + outName + "_cast"},
                        {"name", name + "_" + outName + "_cast"},
                        {"grid", grid},
                        {"inputs", json::array({castIn})},
                        {"outputs", json::array({outSpec})}};

      // L1 adds dot(X1, B1) at its Q rows, once both are there.
      Value x1 = m.counterpart(x2), b1 = m.counterpart(b2);
      Operation *after = x1.getDefiningOp();
      if (Operation *bDef = b1.getDefiningOp();
          bDef && bDef->getBlock() == after->getBlock() && after->isBeforeInBlock(bDef))
        after = bDef;
      OpBuilder b(after->getContext());
      b.setInsertionPointAfter(after);
      IRMapping dotMapping;
      dotMapping.map(x2, x1);
      dotMapping.map(b2, b1);
      Operation *dot1 = b.clone(*dot2, dotMapping);
      SmallVector<int64_t> partShape(outType.getShape());
      partShape[0] = s1.rows[int(Role::Q)];
      dot1->getResult(0).setType(RankedTensorType::get(partShape, Float32Type::get(ctx)));
      IndexerList at;
      at.push({IndexerKind::Slice, 0, s1.rows[int(Role::Q)], 1});
      at.push({IndexerKind::Full});
      BlockArgument accIn = body.insertArgument(numInputs, accType, kernel.getLoc());
      (void)accIn;
      BlockArgument accRef = body.getArgument(numInputs + 1 + output);
      accRef.setType(accType);
      AtomicRMWOp::create(b, dot1->getLoc(), dot1->getResult(0).getType(), AtomicKind::add,
                          accRef, ValueRange{s1.qOffset}, at.encode(), dot1->getResult(0),
                          Value());

      // L2 and what only it needed go.
      store.erase();
      for (Operation *op : llvm::reverse(post))
        op->erase();
      l2.erase();
      bool erased = true;
      while (erased) {
        erased = false;
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
          if (op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>() &&
              (isPure(&op) || isa<LoadOp>(op))) {
            op.erase();
            erased = true;
          }
        }
      }
      SmallVector<Type> argTypes(body.getArgumentTypes());
      kernel.setFunctionType(FunctionType::get(ctx, argTypes, {}));
      if (kernel.getArgAttrs())
        kernel.removeArgAttrsAttr();

      fused.kernel = printed(kernel);
      fused.spec = spec;
      fused.spec["inputs"].push_back(accInSpec);
      fused.spec["outputs"][output] = accSpec;
      if (!fused.spec.contains("input_output_aliases"))
        fused.spec["input_output_aliases"] = json::object();
      fused.spec["input_output_aliases"][std::to_string(numInputs)] = output;
      return fused;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<ScanFusion> mlir::pallas::fuseRecomputingScan(StringRef kernelText,
                                                           const json &spec) {
  if (!plainSpec(spec) || findHugeResultNumber(kernelText))
    return std::nullopt; // (its compile says why, where a kernel cannot be)
  DialectRegistry registry;
  registry.insert<PallasDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
  MLIRContext ctx(registry);
  ctx.allowUnregisteredDialects(false);
  // A kernel that does not parse here is reported by its own compile.
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kernelText, &ctx);
  if (!module)
    return std::nullopt;
  auto kernels = module->getOps<KernelOp>();
  if (std::distance(kernels.begin(), kernels.end()) != 1)
    return std::nullopt;
  KernelOp kernel = *kernels.begin();
  size_t numInputs = spec["inputs"].size(), numOutputs = spec["outputs"].size();
  if (kernel.getBody().empty() ||
      kernel.getBody().front().getNumArguments() != numInputs + numOutputs)
    return std::nullopt;
  // An output aliased to an input keeps what the input held: not a sum.
  std::set<size_t> aliased;
  if (spec.contains("input_output_aliases")) {
    if (!spec["input_output_aliases"].is_object())
      return std::nullopt;
    for (auto &[_, out] : spec["input_output_aliases"].items()) {
      if (!out.is_number_unsigned())
        return std::nullopt;
      aliased.insert(out.get<size_t>());
    }
  }
  for (size_t o = 0; o < numOutputs; ++o) {
    if (aliased.count(o))
      continue;
    Fuser fuser{kernel, spec, numInputs};
    if (std::optional<ScanFusion> fused = fuser.tryOutput(o))
      return fused;
  }
  return std::nullopt;
}
