//===- TransposeScores.cpp - a loop's scores computed transposed ----------===//
//
// Attention backward walks the query blocks for one key block's dK and dV:
// S = Q K^T, P = exp(S - lse), dP = dO V^T, dS = P (dP - delta), then
// dV += P^T dO and dK += dS^T Q. Written so (JAX's mha_backward), P and dS
// are transposed into A operands, each through shared memory (an exchange
// and its barriers) every iteration. Computed transposed instead, S^T =
// K Q^T, ..., P^T and dS^T leave their dots in the accumulator layout that
// wgmma takes as a register A: no exchange (FlashAttention-3 computes its
// backward so). Where dS itself is an operand too (dQ = dS K in the
// five-matmul form) it is transposed back for it, through shared memory as
// before.
//
// A region: dots of a loop body and the elementwise ops between them,
// closed under their users in the body, every value of one 2-D shape,
// leaving the region only as a transpose or as another dot's A or B. Its
// constants, splats and vector broadcasts are rebuilt in the transposed
// shape (a broadcast along rows becomes one along columns). The region is
// computed transposed where more of its values leave as transposes than
// need one: values read as they are by dots outside it, and operands of
// its dots that are neither transposes already nor loaded tiles (wgmma
// reads a tile in shared memory either way round, registers it does not).
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASTRANSPOSESCORES
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

bool isTranspose(Operation *op) {
  auto trans = dyn_cast_or_null<tt::TransOp>(op);
  return trans && trans.getOrder() == ArrayRef<int32_t>{1, 0};
}

/// The same tensor type with its two dims swapped.
RankedTensorType swapped(Type type) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get({t.getDimSize(1), t.getDimSize(0)}, t.getElementType(),
                               t.getEncoding());
}

/// A 1-D vector broadcast along one axis of a 2-D tile
/// (broadcast(expand_dims(v))).
tt::ExpandDimsOp broadcastVector(Value v) {
  auto bcast = v.getDefiningOp<tt::BroadcastOp>();
  auto expand = bcast ? bcast.getSrc().getDefiningOp<tt::ExpandDimsOp>() : tt::ExpandDimsOp();
  return expand && cast<RankedTensorType>(expand.getSrc().getType()).getRank() == 1 ? expand
                                                                                     : tt::ExpandDimsOp();
}

/// An operand the region rebuilds transposed rather than holds: a splat
/// constant, a splat, or a vector broadcast.
bool isEdge(Value v) {
  DenseElementsAttr constant;
  return (matchPattern(v, m_Constant(&constant)) && constant.isSplat()) ||
         v.getDefiningOp<tt::SplatOp>() || broadcastVector(v);
}

bool hasShape(Type type, ArrayRef<int64_t> shape) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && !t.getEncoding() && t.getShape() == shape;
}

struct Region {
  llvm::SetVector<Operation *> ops;
  int64_t leaveTransposed = 0, leaveAsOperand = 0;
};

/// Whether `op` may be in a region of tiles of `shape`: a dot, or an
/// elementwise op, of that shape.
bool mayJoin(Operation *op, ArrayRef<int64_t> shape) {
  if (op->getNumResults() != 1 || !hasShape(op->getResult(0).getType(), shape))
    return false;
  if (isa<tt::DotOp>(op))
    return true;
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0 &&
         llvm::all_of(op->getOperandTypes(), [&](Type t) {
           return !isa<ShapedType>(t) || hasShape(t, shape);
         });
}

/// The operands of a member that are transposed with it: a dot's
/// accumulator (its A and B swap places instead), every tensor operand of
/// an elementwise op.
SmallVector<Value> transposedOperands(Operation *op) {
  if (auto dot = dyn_cast<tt::DotOp>(op))
    return {dot.getC()};
  SmallVector<Value> out;
  for (Value v : op->getOperands())
    if (isa<ShapedType>(v.getType()))
      out.push_back(v);
  return out;
}

/// The region around `seed` in `body`, or nothing where some value in it
/// cannot be transposed.
std::optional<Region> regionAround(tt::DotOp seed, Block *body) {
  SmallVector<int64_t> shape(cast<RankedTensorType>(seed.getType()).getShape());
  if (shape.size() != 2)
    return std::nullopt;
  Region r;
  SmallVector<Operation *> work{seed};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (r.ops.contains(op))
      continue;
    if (op->getBlock() != body || !mayJoin(op, shape))
      return std::nullopt;
    r.ops.insert(op);
    for (Value v : transposedOperands(op)) {
      if (isEdge(v))
        continue;
      Operation *def = v.getDefiningOp();
      if (!def)
        return std::nullopt;
      work.push_back(def);
    }
    for (OpOperand &use : op->getResult(0).getUses()) {
      Operation *user = use.getOwner();
      auto dot = dyn_cast<tt::DotOp>(user);
      if (isTranspose(user))
        ++r.leaveTransposed;
      else if (dot && use.getOperandNumber() != 2)
        ++r.leaveAsOperand;
      else
        work.push_back(user);
    }
  }
  // A member dot's A and B swap places, transposed: neither may be a
  // member or a member's transpose. A transpose it needs anew costs an
  // exchange unless the operand is a loaded tile (wgmma reads a tile in
  // shared memory either way round).
  for (Operation *op : r.ops) {
    auto dot = dyn_cast<tt::DotOp>(op);
    if (!dot)
      continue;
    for (Value v : {dot.getA(), dot.getB()}) {
      Operation *def = v.getDefiningOp();
      if (isTranspose(def)) {
        if (r.ops.contains(cast<tt::TransOp>(def).getSrc().getDefiningOp()))
          return std::nullopt;
        continue;
      }
      if (r.ops.contains(def))
        return std::nullopt;
      if (!isa_and_nonnull<tt::LoadOp>(def))
        ++r.leaveAsOperand;
    }
  }
  return r;
}

/// `v` transposed: the source of a transpose, or a new transpose before
/// `b`'s insertion point.
Value transposeOf(OpBuilder &b, Value v) {
  if (isTranspose(v.getDefiningOp()))
    return v.getDefiningOp<tt::TransOp>().getSrc();
  return tt::TransOp::create(b, v.getLoc(), swapped(v.getType()), v, ArrayRef<int32_t>{1, 0});
}

/// An edge rebuilt in the transposed shape beside the original (a
/// broadcast hoisted out of the loop stays out).
Value transposeEdge(Value v) {
  Operation *def = v.getDefiningOp();
  OpBuilder b(def->getContext());
  b.setInsertionPointAfter(def);
  Location loc = v.getLoc();
  if (auto expand = broadcastVector(v)) {
    auto expanded = tt::ExpandDimsOp::create(b, loc, swapped(expand.getType()), expand.getSrc(),
                                             1 - expand.getAxis());
    return tt::BroadcastOp::create(b, loc, swapped(v.getType()), expanded);
  }
  if (auto splat = v.getDefiningOp<tt::SplatOp>())
    return tt::SplatOp::create(b, loc, swapped(v.getType()), splat.getSrc());
  DenseElementsAttr constant;
  matchPattern(v, m_Constant(&constant));
  return arith::ConstantOp::create(b, loc, constant.reshape(swapped(v.getType())));
}

void transpose(const Region &r) {
  DenseMap<Value, Value> edges;
  IRMapping map;
  auto mapped = [&](Value v) -> Value {
    if (Value t = map.lookupOrNull(v))
      return t;
    auto [it, fresh] = edges.try_emplace(v);
    if (fresh)
      it->second = transposeEdge(v);
    return it->second;
  };
  SmallVector<Operation *> ops(r.ops.begin(), r.ops.end());
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ops) {
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    Value result = op->getResult(0);
    Value t;
    if (auto dot = dyn_cast<tt::DotOp>(op)) {
      // (A B)^T = B^T A^T.
      Value a = transposeOf(b, dot.getB()), bt = transposeOf(b, dot.getA());
      auto dotT = tt::DotOp::create(b, dot.getLoc(), swapped(dot.getType()), a, bt,
                                    mapped(dot.getC()), dot.getInputPrecision(),
                                    dot.getMaxNumImpreciseAcc());
      t = dotT.getResult();
    } else {
      IRMapping operands;
      for (Value v : transposedOperands(op))
        operands.map(v, mapped(v));
      Operation *clone = b.clone(*op, operands);
      clone->getResult(0).setType(swapped(result.getType()));
      t = clone->getResult(0);
    }
    map.map(result, t);
  }
  // Transposes of members read the transposed value; dots reading a
  // member as A or B read it transposed back.
  for (Operation *op : ops) {
    Value result = op->getResult(0), t = map.lookup(result);
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
      Operation *user = use.getOwner();
      if (r.ops.contains(user))
        continue;
      if (isTranspose(user)) {
        user->getResult(0).replaceAllUsesWith(t);
        user->erase();
        continue;
      }
      OpBuilder b(user);
      use.set(transposeOf(b, t));
    }
  }
  // The old region, and the transposes its dots read that nothing else
  // does (K^T hoisted out of the loop).
  llvm::SetVector<Operation *> operandTransposes;
  for (Operation *op : llvm::reverse(ops)) {
    if (auto dot = dyn_cast<tt::DotOp>(op))
      for (Value v : {dot.getA(), dot.getB()})
        if (isTranspose(v.getDefiningOp()))
          operandTransposes.insert(v.getDefiningOp());
    op->erase();
  }
  for (Operation *trans : operandTransposes)
    if (trans->use_empty())
      trans->erase();
  // Edges nothing else reads (a broadcast's expand_dims with it).
  for (auto [edge, t] : edges) {
    Operation *def = edge.getDefiningOp();
    if (!def->use_empty())
      continue;
    Operation *expand = broadcastVector(edge);
    def->erase();
    if (expand && expand->use_empty())
      expand->erase();
  }
}

void transposeIn(scf::ForOp loop) {
  Block *body = loop.getBody();
  llvm::SmallPtrSet<Operation *, 8> seen;
  SmallVector<Region> regions;
  for (tt::DotOp dot : body->getOps<tt::DotOp>()) {
    if (seen.contains(dot))
      continue;
    std::optional<Region> r = regionAround(dot, body);
    if (!r)
      continue;
    seen.insert(r->ops.begin(), r->ops.end());
    if (r->leaveTransposed > r->leaveAsOperand)
      regions.push_back(std::move(*r));
  }
  for (const Region &r : regions)
    transpose(r);
}

struct TransposeScoresPass : pallas::impl::PallasTransposeScoresBase<TransposeScoresPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      transposeIn(loop);
  }
};

} // namespace
