//===- SimtDataMovement.cpp - ops that move elements between threads ------===//
//
// Broadcast, transpose, join, reduce, scan and dot read elements other
// threads hold: the operands go through shared memory (row-major, each
// element at its index), and reductions combine within warps by shuffles.
//
//===----------------------------------------------------------------------===//
#include "TileToNVVM/Patterns.h"
#include "Dialect/Layouts.h"
#include "Dialect/SharedLayouts.h"
#include "TileToNVVM/Builders.h"
#include "TileToNVVM/DotLowering.h"
#include "TileToNVVM/PatternBase.h"
#include "TileToNVVM/SharedMemory.h"
#include "TileToNVVM/SimtState.h"
#include "TileToNVVM/ThreadSlots.h"
#include "TileToNVVM/TypeConverter.h"

#include "mlir/IR/Matchers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Reads the elements of a tensor written at `offset` that each slot of
/// the result (of `resultShape`, blocked) needs, given the source index of
/// a result element's coordinates.
Value gatherFromSmem(OpBuilder &b, Location loc, SimtState &s, Type elem,
                     int64_t offset, ArrayRef<int64_t> resultShape,
                     function_ref<Value(ArrayRef<Value>)> sourceIndex) {
  SmallVector<Value> elems;
  for (ArrayRef<Value> coords : slotCoordinates(b, loc, s, resultShape))
    elems.push_back(smemLoad(b, loc, s, elem, offset, sourceIndex(coords)));
  return buildVector(b, loc, elems);
}

/// The element of tile value `v` at `coords`, computed from scratch when
/// `v` is built from ranges, splats, constants, expand_dims, broadcasts and
/// elementwise arith (index arithmetic, mostly); null otherwise.
Value rematerialize(ConversionPatternRewriter &rw, Location loc, Value v,
                    ArrayRef<Value> coords, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 24)
    return {};
  auto type = cast<RankedTensorType>(v.getType());
  if (auto range = dyn_cast<tt::MakeRangeOp>(def))
    return range.getStart()
               ? (Value)arith::AddIOp::create(rw, loc, coords[0],
                                              constI32(rw, loc, range.getStart()))
               : coords[0];
  if (auto splat = dyn_cast<tt::SplatOp>(def))
    return rw.getRemappedValue(splat.getSrc());
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    if (!dense || !dense.isSplat() || isa<tt::PointerType>(type.getElementType()))
      return {};
    return arith::ConstantOp::create(rw, loc, type.getElementType(),
                                     cast<TypedAttr>(dense.getSplatValue<Attribute>()));
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    SmallVector<Value> c(coords);
    c.erase(c.begin() + expand.getAxis());
    return rematerialize(rw, loc, expand.getSrc(), c, depth + 1);
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    auto src = cast<RankedTensorType>(bcast.getSrc().getType());
    SmallVector<Value> c(coords);
    for (int64_t d = 0; d < src.getRank(); ++d)
      if (src.getDimSize(d) == 1 && type.getDimSize(d) != 1)
        c[d] = constI32(rw, loc, 0);
    return rematerialize(rw, loc, bcast.getSrc(), c, depth + 1);
  }
  if (isa<arith::ArithDialect>(def->getDialect()) && def->getNumResults() == 1 &&
      !def->getNumRegions() && !isa<tt::PointerType>(type.getElementType())) {
    SmallVector<Value> operands;
    for (Value o : def->getOperands()) {
      if (!isa<RankedTensorType>(o.getType()))
        return {};
      Value x = rematerialize(rw, loc, o, coords, depth + 1);
      if (!x)
        return {};
      operands.push_back(x);
    }
    OperationState state(loc, def->getName().getStringRef(), operands,
                         TypeRange{type.getElementType()}, def->getAttrs());
    return rw.create(state)->getResult(0);
  }
  return {};
}

/// Whether rematerialize can compute `v` (without building anything).
bool rematerializable(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 24)
    return false;
  auto type = cast<RankedTensorType>(v.getType());
  if (isa<tt::MakeRangeOp, tt::SplatOp>(def))
    return true;
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    return dense && dense.isSplat() && !isa<tt::PointerType>(type.getElementType());
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def))
    return rematerializable(def->getOperand(0), depth + 1);
  if (isa<arith::ArithDialect>(def->getDialect()) && def->getNumResults() == 1 &&
      !def->getNumRegions() && !isa<tt::PointerType>(type.getElementType()))
    return llvm::all_of(def->getOperands(), [&](Value o) {
      return isa<RankedTensorType>(o.getType()) && rematerializable(o, depth + 1);
    });
  return false;
}

/// For index arithmetic `v` linear in its coordinates (ranges, splats,
/// constants, expand_dims, broadcasts, adds and subtracts, products with a
/// constant), the constant each coordinate is multiplied by; nullopt
/// otherwise. v(origin + shift) = v(origin) + coefficients . shift.
std::optional<SmallVector<int64_t>> linearCoefficients(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!def || !type || depth > 24)
    return std::nullopt;
  SmallVector<int64_t> zero(type.getRank(), 0);
  if (isa<tt::MakeRangeOp>(def))
    return SmallVector<int64_t>{1};
  if (isa<tt::SplatOp>(def))
    return zero;
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    return dense && dense.isSplat() ? std::optional(zero) : std::nullopt;
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    auto c = linearCoefficients(expand.getSrc(), depth + 1);
    if (c)
      c->insert(c->begin() + expand.getAxis(), 0);
    return c;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def))
    return linearCoefficients(bcast.getSrc(), depth + 1); // (size-1 dims have 0)
  if (isa<arith::AddIOp, arith::SubIOp>(def)) {
    auto a = linearCoefficients(def->getOperand(0), depth + 1);
    auto b = linearCoefficients(def->getOperand(1), depth + 1);
    if (!a || !b)
      return std::nullopt;
    for (size_t d = 0; d < a->size(); ++d)
      (*a)[d] += isa<arith::AddIOp>(def) ? (*b)[d] : -(*b)[d];
    return a;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    for (int i = 0; i < 2; ++i) {
      SplatElementsAttr splat;
      if (!matchPattern(def->getOperand(1 - i), m_Constant(&splat)))
        continue;
      auto c = linearCoefficients(def->getOperand(i), depth + 1);
      if (c)
        for (int64_t &x : *c)
          x *= splat.getSplatValue<APInt>().getSExtValue();
      return c;
    }
  }
  return std::nullopt;
}

/// A compare of two index tiles in a tensor-core layout (a causal mask,
/// `q_index >= k_index`), each linear in its coordinates: every slot's
/// element is the thread's first one shifted by constants, so the compare
/// is `lhs(origin) - rhs(origin)  pred  (rhs - lhs coefficients) . shift`,
/// one subtraction per thread and a compare with an immediate per slot.
/// Computed element by element, the two tiles took a register per slot
/// each, which LLVM hoisted out of the loop (causal attention's backward
/// spilled over them). Signed orderings and (in)equality; index arithmetic
/// is assumed not to wrap (as pallas-uniform-masks assumes).
struct IndexCompareLowering : SimtPattern<arith::CmpIOp> {
  IndexCompareLowering(const TypeConverter &tc, MLIRContext *ctx, SimtState &state)
      : SimtPattern(tc, ctx, state, /*benefit=*/2) {} // before the elementwise lowering
  LogicalResult matchAndRewrite(arith::CmpIOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    using P = arith::CmpIPredicate;
    P pred = op.getPredicate();
    if (!type || !hasMmaLayout(type) || type.getRank() != 2 ||
        !llvm::is_contained({P::slt, P::sle, P::sgt, P::sge, P::eq, P::ne}, pred))
      return failure();
    auto lc = linearCoefficients(op.getLhs()), rc = linearCoefficients(op.getRhs());
    if (!lc || !rc)
      return failure();
    Location loc = op.getLoc();
    SlotCoordinates slots = slotCoordinates(rw, loc, state, type);
    if (slots.origin.empty())
      return failure();
    Value l0 = rematerialize(rw, loc, op.getLhs(), slots.origin);
    Value r0 = l0 ? rematerialize(rw, loc, op.getRhs(), slots.origin) : Value();
    if (!l0 || !r0)
      return failure();
    Value diff = arith::SubIOp::create(rw, loc, l0, r0);
    SmallVector<Value> elems;
    for (size_t i = 0; i < slots.size(); ++i) {
      int64_t k = 0;
      for (size_t d = 0; d < slots.shifts[i].size(); ++d)
        k += ((*rc)[d] - (*lc)[d]) * slots.shifts[i][d];
      Value bound = arith::ConstantOp::create(rw, loc, diff.getType(),
                                              rw.getIntegerAttr(diff.getType(), k));
      elems.push_back(arith::CmpIOp::create(rw, loc, pred, diff, bound));
    }
    rw.replaceOp(op, buildVector(rw, loc, elems));
    return success();
  }
};

/// Tensor `v`, index arithmetic, computed element by element in the layout
/// of `layout` (same shape): this thread's slots; null when `v` cannot be
/// (what was built for it is left unused).
Value rematerializeIn(ConversionPatternRewriter &rw, Location loc, const SimtState &s, Value v,
                      RankedTensorType layout) {
  SmallVector<Value> elems;
  for (ArrayRef<Value> coords : slotCoordinates(rw, loc, s, layout)) {
    Value e = rematerialize(rw, loc, v, coords);
    if (!e)
      return {};
    elems.push_back(e);
  }
  return buildVector(rw, loc, elems);
}

} // namespace

bool cuda::broadcastUsesScratch(tt::BroadcastOp op) {
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  return !hasSliceLayout(srcType) && srcType.getNumElements() != 1 &&
         !rematerializable(op.getResult());
}

bool cuda::broadcastsWithinWarpgroups(Operation *op, int64_t threads) {
  auto broadcast = dyn_cast<tt::BroadcastOp>(op);
  // (Named barrier ids end at 15: 2 + 2 * warpgroups - 1 of them.)
  int64_t groups = threads / 128;
  if (!broadcast || groups < 2 || groups > 7 || threads % 128 ||
      !broadcastUsesScratch(broadcast))
    return false;
  auto src = cast<RankedTensorType>(broadcast.getSrc().getType());
  BlockedLayout l(src.getNumElements(), threads);
  return !src.getEncoding() && l.replicated() && 128 % l.chunks == 0;
}

bool cuda::layoutCastUsesScratch(tensor::CastOp op) {
  auto src = cast<RankedTensorType>(op.getSource().getType());
  SplatElementsAttr splat;
  // Into wgmma's f8 A-fragment order: shuffles within each quad.
  if (hasWgmmaLayout(src) && hasWgmmaF8ALayout(op.getType()))
    return false;
  return src.getEncoding() != cast<RankedTensorType>(op.getType()).getEncoding() &&
         !matchPattern(op.getSource(), m_Constant(&splat)) &&
         !rematerializable(op.getSource());
}

namespace {

struct BroadcastLowering : SimtPattern<tt::BroadcastOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::BroadcastOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    auto vt = cast<VectorType>(getTypeConverter()->convertType(dstType));
    if (hasSliceLayout(srcType)) {
      // Along the rows of a tensor-core layout: each thread already holds
      // its rows' values (slice slot 2 tm + h for rows tm * 16 + 8 h + g).
      std::optional<MmaLayout> l = mmaLayoutOf(dstType);
      if (!l)
        return op.emitOpError("internal error: broadcast of a row slice into ") << dstType;
      SmallVector<Value> elems;
      for (int64_t tm = 0; tm < l->tilesM; ++tm)
        for (int64_t tn = 0; tn < l->tilesN; ++tn)
          for (int64_t r = 0; r < 4; ++r)
            elems.push_back(extractSlot(rw, loc, a.getSrc(), 2 * tm + r / 2));
      rw.replaceOp(op, buildVector(rw, loc, elems));
      return success();
    }
    if (srcType.getNumElements() == 1) {
      // Every thread holds the one element.
      rw.replaceOpWithNewOp<vector::BroadcastOp>(op, vt, extractSlot(rw, loc, a.getSrc(), 0));
      return success();
    }
    ArrayRef<int64_t> in = srcType.getShape(), out = dstType.getShape();
    // Index arithmetic: recompute each element instead of exchanging it.
    if (Value v = rematerializeIn(rw, loc, state, op.getResult(), dstType)) {
      rw.replaceOp(op, v);
      return success();
    }
    smemWriteTensor(rw, loc, state, 0, a.getSrc(), srcType.getNumElements());
    auto sourceIndex = [&](ArrayRef<Value> coords) {
      SmallVector<Value> c(coords);
      for (size_t d = 0; d < in.size(); ++d)
        if (in[d] == 1)
          c[d] = constI32(rw, loc, 0);
      return ravel(rw, loc, c, in);
    };
    if (hasMmaLayout(dstType)) {
      // A row (bias) broadcast straight into a tensor-core layout: only the
      // source goes through shared memory, each thread reading its slots'
      // columns (not a whole tile exchanged into the layout afterwards).
      SmallVector<Value> elems;
      for (ArrayRef<Value> coords : slotCoordinates(rw, loc, state, dstType))
        elems.push_back(smemLoad(rw, loc, state, vt.getElementType(), 0, sourceIndex(coords)));
      rw.replaceOp(op, buildVector(rw, loc, elems));
      return success();
    }
    rw.replaceOp(op, gatherFromSmem(rw, loc, state, vt.getElementType(), 0, out, sourceIndex));
    return success();
  }
};

struct TransLowering : SimtPattern<tt::TransOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::TransOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    Type elem = cast<VectorType>(a.getSrc().getType()).getElementType();
    if (!op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation *u) {
          auto dot = dyn_cast<tt::DotOp>(u);
          bool asA = dot && dot.getA() == op.getResult(), asB = dot && dot.getB() == op.getResult();
          return dot && ((asB && !asA && kMajorB(dot) == op) ||
                         (asA && !asB && mnMajorA(dot) == op));
        })) {
      // wgmma reads the source as its K-major B or MN-major A (mma.sync
      // its K-major B): no transpose to compute.
      rw.replaceOpWithNewOp<LLVM::UndefOp>(op, getTypeConverter()->convertType(dstType));
      return success();
    }
    smemWriteTensor(rw, loc, state, 0, a.getSrc(), srcType.getNumElements());
    ArrayRef<int32_t> order = op.getOrder();
    rw.replaceOp(op, gatherFromSmem(rw, loc, state, elem, 0, dstType.getShape(),
                                    [&](ArrayRef<Value> c) {
                                      SmallVector<Value> src(c.size());
                                      for (size_t i = 0; i < order.size(); ++i)
                                        src[order[i]] = c[i];
                                      return ravel(rw, loc, src, srcType.getShape());
                                    }));
    return success();
  }
};

struct JoinLowering : SimtPattern<tt::JoinOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::JoinOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    int64_t n = cast<RankedTensorType>(op.getLhs().getType()).getNumElements();
    Type elem = cast<VectorType>(a.getLhs().getType()).getElementType();
    // The rhs right after the lhs, so that element i of the rhs is element
    // n + i of the whole.
    smemWriteTensor(rw, loc, state, 0, a.getLhs(), n);
    smemWriteTensor(rw, loc, state, n * smemElementBytes(elem), a.getRhs(), n);
    ArrayRef<int64_t> shape = cast<RankedTensorType>(op.getType()).getShape();
    rw.replaceOp(op, gatherFromSmem(rw, loc, state, elem, 0, shape, [&](ArrayRef<Value> c) {
                   // Element (..., which) of the result is element (...) of
                   // the lhs or the rhs.
                   Value src = ravel(rw, loc, c.drop_back(), shape.drop_back());
                   return (Value)arith::AddIOp::create(
                       rw, loc, src, arith::MulIOp::create(rw, loc, c.back(), constI32(rw, loc, n)));
                 }));
    return success();
  }
};

// --- Reductions -------------------------------------------------------------

/// `v` from the lane `tid xor offset` of the warp.
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t offset) {
  Type t = v.getType();
  unsigned bits = t.getIntOrFloatBitWidth();
  Type wide = bits <= 32 ? b.getI32Type() : b.getI64Type();
  Value x = v;
  if (t != wide && !(t.isF32() || t.isF64())) {
    Type asInt = IntegerType::get(b.getContext(), bits);
    if (asInt != t)
      x = arith::BitcastOp::create(b, loc, asInt, x);
    if (bits < 32)
      x = arith::ExtUIOp::create(b, loc, wide, x);
  }
  Value r = gpu::ShuffleOp::create(b, loc, x, constI32(b, loc, offset), constI32(b, loc, 32),
                                   gpu::ShuffleMode::XOR)
                .getShuffleResult();
  if (r.getType() == t)
    return r;
  Type asInt = IntegerType::get(b.getContext(), bits);
  if (bits < 32)
    r = arith::TruncIOp::create(b, loc, asInt, r);
  if (asInt != t)
    r = arith::BitcastOp::create(b, loc, t, r);
  return r;
}

/// Combines across `lanes` consecutive lanes (a power of two up to 32);
/// afterwards every lane of the group holds the group's result.
SmallVector<Value> butterfly(OpBuilder &b, Location loc, Region &combiner,
                             SmallVector<Value> acc, int64_t lanes) {
  for (int64_t off = lanes / 2; off >= 1; off /= 2) {
    SmallVector<Value> other;
    for (Value v : acc)
      other.push_back(shuffleXor(b, loc, v, off));
    acc = combine(b, loc, combiner, acc, other);
  }
  return acc;
}

/// Combines `level` (values of each operand) pairwise, a tree of
/// log2(size) levels rather than a chain of size - 1 dependent ops.
SmallVector<Value> foldPairwise(OpBuilder &b, Location loc, Region &combiner,
                                SmallVector<SmallVector<Value>> level) {
  while (level.size() > 1) {
    SmallVector<SmallVector<Value>> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(combine(b, loc, combiner, level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

/// Byte offsets in the exchange area of one array of `count` elements of
/// each of `types`, one after another from `start`, each 16-byte aligned;
/// the area is reserved up to the last one's end.
SmallVector<int64_t> exchangeArrays(SimtState &s, ArrayRef<Type> types, int64_t count,
                                    int64_t start = 0) {
  SmallVector<int64_t> offsets;
  int64_t at = start;
  for (Type t : types) {
    offsets.push_back(at);
    at += (count * smemElementBytes(t) + 15) / 16 * 16;
  }
  reserveSmem(s, at);
  return offsets;
}

/// After `butterfly` over whole warps: combines the `warps` per group of
/// `groupThreads` threads through shared memory at `offset`.
SmallVector<Value> acrossWarps(OpBuilder &b, Location loc, SimtState &s, Region &combiner,
                               ArrayRef<Value> acc, int64_t groupThreads, int64_t offset) {
  int64_t numWarps = s.threads / 32;
  Value warp = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  Value lane = arith::RemUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  SmallVector<int64_t> offsets = exchangeArrays(
      s, llvm::map_to_vector(acc, [](Value v) { return v.getType(); }), numWarps, offset);
  barrier(b, loc);
  {
    Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                          constI32(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, isLane0, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [v, o] : llvm::zip(acc, offsets))
      smemStore(b, loc, s, o, warp, v);
  }
  barrier(b, loc);
  int64_t perGroup = groupThreads / 32;
  Value first = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, warp, constI32(b, loc, perGroup)),
      constI32(b, loc, perGroup));
  auto read = [&](int64_t w) {
    SmallVector<Value> vals;
    Value idx = arith::AddIOp::create(b, loc, first, constI32(b, loc, w));
    for (auto [v, o] : llvm::zip(acc, offsets))
      vals.push_back(smemLoad(b, loc, s, v.getType(), o, idx));
    return vals;
  };
  SmallVector<Value> result = read(0);
  for (int64_t w = 1; w < perGroup; ++w)
    result = combine(b, loc, combiner, result, read(w));
  return result;
}

/// After the row reduction of a tensor-core layout within each warp:
/// `rows[i][2 tm + h]` is operand i's value of this thread's row tm * 16 +
/// 8 h + g (its warp's share of the columns). Combines the warpsN warps
/// sharing those rows through shared memory: lane 4g of each writes its
/// rows' values, then every thread reads the warpsN values of its rows, in
/// the same order in every warp (so that all hold the same result).
SmallVector<SmallVector<Value>> acrossColumnWarps(OpBuilder &b, Location loc, SimtState &s,
                                                  Region &combiner, const MmaLayout &l,
                                                  ArrayRef<SmallVector<Value>> rows) {
  MmaThread t = mmaThread(b, loc, s, l);
  Value warp = arith::DivUIOp::create(b, loc, s.tid, constI32(b, loc, 32));
  Value wn = warpCoordinates(b, loc, warp, l).second;
  SmallVector<int64_t> offsets = exchangeArrays(
      s, llvm::map_to_vector(rows, [](const SmallVector<Value> &r) { return r.front().getType(); }),
      l.warpsN * l.m);
  // Row index of slot (tm, h) of this thread.
  SmallVector<Value> rowOf;
  for (int64_t tm = 0; tm < l.tilesM; ++tm)
    for (int64_t h = 0; h < 2; ++h)
      rowOf.push_back(arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, t.rowBase, t.g),
          constI32(b, loc, tm * l.tileRowStride() + 8 * h)));
  // Where warp w's value of `row` lies in each operand's array.
  auto exchangeIndex = [&](Value w, Value row) {
    return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, w, constI32(b, loc, l.m)),
                                 row);
  };
  barrier(b, loc);
  {
    Value quadLead = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t.q,
                                           constI32(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, quadLead, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [r, o] : llvm::zip(rows, offsets))
      for (auto [slot, v] : llvm::enumerate(r))
        smemStore(b, loc, s, o, exchangeIndex(wn, rowOf[slot]), v);
  }
  barrier(b, loc);
  SmallVector<SmallVector<Value>> out(rows.size());
  for (size_t slot = 0; slot < rowOf.size(); ++slot) {
    auto read = [&](int64_t w) {
      SmallVector<Value> vals;
      for (auto [r, o] : llvm::zip(rows, offsets))
        vals.push_back(smemLoad(b, loc, s, r[slot].getType(), o,
                                exchangeIndex(constI32(b, loc, w), rowOf[slot])));
      return vals;
    };
    SmallVector<Value> acc = read(0);
    for (int64_t w = 1; w < l.warpsN; ++w)
      acc = combine(b, loc, combiner, acc, read(w));
    for (auto [i, v] : llvm::enumerate(acc))
      out[i].push_back(v);
  }
  return out;
}

struct ReduceLowering : SimtPattern<tt::ReduceOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::ReduceOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    ArrayRef<int64_t> shape = srcType.getShape();
    int64_t axis = op.getAxis();
    int64_t n = srcType.getNumElements(), len = shape[axis], outputs = n / len;
    int64_t inner = product(shape.drop_front(axis + 1));
    int64_t threads = state.threads;
    Region &combiner = op.getCombineOp();
    ValueRange srcs = a.getSrcs();
    BlockedLayout layout(n, threads);

    if (std::optional<MmaLayout> l = mmaLayoutOf(srcType)) {
      // Rows of a tensor-core layout into a row slice: each thread folds
      // its slots of a row (two columns per 8-column tile) pairwise, a tree
      // of log2(slots) levels rather than a chain of slots - 1 dependent
      // ops (softmax's row max and row sum: 5 levels instead of 31 at 128
      // columns), then the four lanes sharing the row combine by shuffles.
      // Where warps also split the columns (warpsN > 1: decode attention's
      // 16-row tiles), the warps sharing rows then combine through shared
      // memory (acrossColumnWarps); the result is their row slice, which
      // each of them holds.
      if (axis != 1 || !hasSliceLayout(op.getResult()[0].getType()))
        return op.emitOpError("internal error: reduction of a tensor-core layout "
                              "other than along its rows into a row slice");
      SmallVector<SmallVector<Value>> results(srcs.size());
      for (int64_t tm = 0; tm < l->tilesM; ++tm)
        for (int64_t h = 0; h < 2; ++h) {
          SmallVector<SmallVector<Value>> level;
          for (int64_t tn = 0; tn < l->tilesN; ++tn)
            for (int64_t c = 0; c < 2; ++c) {
              int64_t slot = (tm * l->tilesN + tn) * 4 + 2 * h + c;
              SmallVector<Value> x;
              for (Value v : srcs)
                x.push_back(extractSlot(rw, loc, v, slot));
              level.push_back(x);
            }
          SmallVector<Value> acc =
              butterfly(rw, loc, combiner, foldPairwise(rw, loc, combiner, level), /*lanes=*/4);
          for (auto [i, v] : llvm::enumerate(acc))
            results[i].push_back(v);
        }
      if (l->warpsN > 1)
        results = acrossColumnWarps(rw, loc, state, combiner, *l, results);
      SmallVector<Value> out;
      for (auto &r : results)
        out.push_back(buildVector(rw, loc, r));
      rw.replaceOp(op, out);
      return success();
    }

    if (shape.size() == 1 && !layout.replicated()) {
      // A whole reduction: fold the own slots, then across lanes and warps.
      SmallVector<Value> acc;
      for (Value v : srcs)
        acc.push_back(extractSlot(rw, loc, v, 0));
      for (int64_t i = 1; i < layout.perThread; ++i) {
        SmallVector<Value> x;
        for (Value v : srcs)
          x.push_back(extractSlot(rw, loc, v, i));
        acc = combine(rw, loc, combiner, acc, x);
      }
      acc = butterfly(rw, loc, combiner, acc, std::min<int64_t>(32, threads));
      if (threads > 32)
        acc = acrossWarps(rw, loc, state, combiner, acc, threads, 0);
      rw.replaceOp(op, acc);
      return success();
    }

    // Each output this thread computed (outputIndex[j]: its row-major
    // index, results[j]: its value per operand); the threads with `leader`
    // set hand theirs to the output's layout below.
    SmallVector<SmallVector<Value>> results;
    SmallVector<Value> outputIndex;
    Value leader;
    int64_t chunksPerRow = len / layout.vec;
    if (inner == 1 && shape.size() > 1 && len % layout.vec == 0 &&
        llvm::isPowerOf2_64(chunksPerRow) && chunksPerRow <= 32 &&
        threads % chunksPerRow == 0 && layout.chunks % threads == 0 &&
        !hasMmaLayout(srcType) && !sliceParentOf(srcType)) {
      // The last axis of a blocked layout whose rows are whole chunks on
      // consecutive lanes of one warp: each thread folds its chunk of a row
      // in registers (a tree), the chunksPerRow lanes sharing the row
      // combine by shuffles, and only the row results go through shared
      // memory. (Through the general case below, attention backward's
      // delta = rowsum(dO * O) wrote its whole 128 x 128 product to shared
      // memory and summed each row in one thread, 32 lanes on one bank.)
      int64_t rounds = layout.perThread / layout.vec, rowsPerRound = threads / chunksPerRow;
      Value rowBase = arith::DivUIOp::create(rw, loc, state.tid, constI32(rw, loc, chunksPerRow));
      for (int64_t j = 0; j < rounds; ++j) {
        SmallVector<SmallVector<Value>> level;
        for (int64_t i = 0; i < layout.vec; ++i) {
          SmallVector<Value> x;
          for (Value v : srcs)
            x.push_back(extractSlot(rw, loc, v, j * layout.vec + i));
          level.push_back(x);
        }
        SmallVector<Value> acc = foldPairwise(rw, loc, combiner, level);
        results.push_back(chunksPerRow > 1 ? butterfly(rw, loc, combiner, acc, chunksPerRow)
                                           : acc);
        outputIndex.push_back(
            arith::AddIOp::create(rw, loc, rowBase, constI32(rw, loc, j * rowsPerRound)));
      }
      leader = arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(rw, loc, state.tid, constI32(rw, loc, chunksPerRow)),
          constI32(rw, loc, 0));
      return replaceWithOutputs(op, rw, srcs, outputs, results, outputIndex, leader);
    }

    // The general case: operands in shared memory; `group` threads share
    // each output.
    SmallVector<int64_t> offsets;
    int64_t at = 0;
    for (Value v : srcs) {
      offsets.push_back(at);
      at += smemWriteTensor(rw, loc, state, at, v, n);
    }
    int64_t group = outputs >= threads ? 1 : std::min(threads / outputs, len);
    int64_t groups = threads / group;
    int64_t perThread = std::max<int64_t>(1, outputs / groups);
    Value first = arith::DivUIOp::create(rw, loc, state.tid, constI32(rw, loc, group));
    Value q = arith::RemUIOp::create(rw, loc, state.tid, constI32(rw, loc, group));
    for (int64_t j = 0; j < perThread; ++j) {
      Value p = arith::AddIOp::create(rw, loc, first, constI32(rw, loc, j * groups));
      p = arith::RemUIOp::create(rw, loc, p, constI32(rw, loc, outputs));
      outputIndex.push_back(p);
      Value outer = arith::DivUIOp::create(rw, loc, p, constI32(rw, loc, inner));
      Value innerIdx = arith::RemUIOp::create(rw, loc, p, constI32(rw, loc, inner));
      Value base = arith::AddIOp::create(
          rw, loc, arith::MulIOp::create(rw, loc, outer, constI32(rw, loc, len * inner)),
          innerIdx);
      auto element = [&](OpBuilder &b, Location l, Value k) {
        Value idx = arith::AddIOp::create(
            b, l, base, arith::MulIOp::create(b, l, k, constI32(b, l, inner)));
        SmallVector<Value> vals;
        for (auto [v, o] : llvm::zip(srcs, offsets))
          vals.push_back(smemLoad(b, l, state, cast<VectorType>(v.getType()).getElementType(),
                                  o, idx));
        return vals;
      };
      SmallVector<Value> acc = element(rw, loc, q);
      if (len > group) {
        Value start = arith::AddIOp::create(rw, loc, q, constI32(rw, loc, group));
        auto loop = scf::ForOp::create(rw, loc, start, constI32(rw, loc, len),
                                       constI32(rw, loc, group), acc);
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(loop.getBody());
        SmallVector<Value> next =
            combine(rw, loc, combiner, loop.getRegionIterArgs(),
                    element(rw, loc, loop.getInductionVar()));
        scf::YieldOp::create(rw, loc, next);
        acc = SmallVector<Value>(loop.getResults().begin(), loop.getResults().end());
      }
      if (group > 1)
        acc = butterfly(rw, loc, combiner, acc, std::min<int64_t>(group, 32));
      if (group > 32)
        acc = acrossWarps(rw, loc, state, combiner, acc, group, at);
      results.push_back(acc);
    }
    if (shape.size() == 1) {
      rw.replaceOp(op, results.front());
      return success();
    }
    leader = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, q, constI32(rw, loc, 0));
    return replaceWithOutputs(op, rw, srcs, outputs, results, outputIndex, leader);
  }

  /// Replaces `op` with its outputs in their blocked layout, through
  /// shared memory: the threads with `leader` set write results[j] at
  /// outputIndex[j].
  LogicalResult replaceWithOutputs(tt::ReduceOp op, ConversionPatternRewriter &rw,
                                   ValueRange srcs, int64_t outputs,
                                   ArrayRef<SmallVector<Value>> results,
                                   ArrayRef<Value> outputIndex, Value leader) const {
    Location loc = op.getLoc();
    int64_t perThread = results.size();
    SmallVector<Value> replacements;
    SmallVector<int64_t> outOffsets = exchangeArrays(
        state, llvm::map_to_vector(srcs, [](Value v) {
          return cast<VectorType>(v.getType()).getElementType();
        }),
        outputs);
    barrier(rw, loc);
    {
      auto ifOp = scf::IfOp::create(rw, loc, leader, false);
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(ifOp.thenBlock());
      for (int64_t j = 0; j < perThread; ++j)
        for (size_t r = 0; r < srcs.size(); ++r)
          smemStore(rw, loc, state, outOffsets[r], outputIndex[j], results[j][r]);
    }
    barrier(rw, loc);
    for (size_t r = 0; r < srcs.size(); ++r) {
      Type elem = cast<VectorType>(srcs[r].getType()).getElementType();
      replacements.push_back(gatherFromSmem(rw, loc, state, elem, outOffsets[r], {outputs},
                                            [](ArrayRef<Value> c) { return c[0]; }));
    }
    rw.replaceOp(op, replacements);
    return success();
  }
};

struct ScanLowering : SimtPattern<tt::ScanOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::ScanOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    ArrayRef<int64_t> shape = srcType.getShape();
    int64_t axis = op.getAxis(), n = srcType.getNumElements(), len = shape[axis];
    int64_t inner = product(shape.drop_front(axis + 1));
    bool reverse = op.getReverse();
    ValueRange srcs = a.getSrcs();
    SmallVector<int64_t> offsets;
    int64_t at = 0;
    for (Value v : srcs) {
      offsets.push_back(at);
      at += smemWriteTensor(rw, loc, state, at, v, n);
    }
    SmallVector<SmallVector<Value>> slots(srcs.size());
    for (Value idx : slotElementIndices(rw, loc, state, n)) {
      Value pos = arith::RemUIOp::create(
          rw, loc, arith::DivUIOp::create(rw, loc, idx, constI32(rw, loc, inner)),
          constI32(rw, loc, len));
      Value base = arith::SubIOp::create(
          rw, loc, idx, arith::MulIOp::create(rw, loc, pos, constI32(rw, loc, inner)));
      auto element = [&](OpBuilder &b, Location l, Value k) {
        Value e = arith::AddIOp::create(b, l, base,
                                        arith::MulIOp::create(b, l, k, constI32(b, l, inner)));
        SmallVector<Value> vals;
        for (auto [v, o] : llvm::zip(srcs, offsets))
          vals.push_back(smemLoad(b, l, state, cast<VectorType>(v.getType()).getElementType(),
                                  o, e));
        return vals;
      };
      // Forward: x[0] . x[1] ... x[pos]; reverse: x[len-1] ... x[pos].
      SmallVector<Value> acc = element(rw, loc, constI32(rw, loc, reverse ? len - 1 : 0));
      Value steps = reverse ? (Value)arith::SubIOp::create(rw, loc, constI32(rw, loc, len - 1), pos)
                            : pos;
      auto loop = scf::ForOp::create(rw, loc, constI32(rw, loc, 1),
                                     arith::AddIOp::create(rw, loc, steps, constI32(rw, loc, 1)),
                                     constI32(rw, loc, 1), acc);
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(loop.getBody());
        Value i = loop.getInductionVar();
        Value k = reverse ? (Value)arith::SubIOp::create(rw, loc, constI32(rw, loc, len - 1), i)
                          : i;
        scf::YieldOp::create(rw, loc, combine(rw, loc, op.getCombineOp(),
                                              loop.getRegionIterArgs(), element(rw, loc, k)));
      }
      for (size_t r = 0; r < srcs.size(); ++r)
        slots[r].push_back(loop.getResult(r));
    }
    SmallVector<Value> results;
    for (auto &s : slots)
      results.push_back(buildVector(rw, loc, s));
    rw.replaceOp(op, results);
    return success();
  }
};

// --- Dot --------------------------------------------------------------------

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? (Value)arith::ExtFOp::create(b, loc, to, v)
               : (Value)arith::TruncFOp::create(b, loc, to, v);
  if (isa<IntegerType>(from) && isa<FloatType>(to))
    return arith::SIToFPOp::create(b, loc, to, v);
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? (Value)arith::ExtSIOp::create(b, loc, to, v)
               : (Value)arith::TruncIOp::create(b, loc, to, v);
  return arith::FPToSIOp::create(b, loc, to, v);
}

/// The dot on CUDA cores: operands in shared memory, each thread
/// accumulating its own output elements in order of k. A 3-D dot is a batch
/// of 2-D ones (leading dim), all in shared memory at once.
struct DotLowering : SimtPattern<tt::DotOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tt::DotOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto cType = cast<RankedTensorType>(op.getC().getType());
    int64_t rank = aType.getRank();
    int64_t batch = rank == 3 ? aType.getDimSize(0) : 1;
    int64_t m = aType.getDimSize(rank - 2), k = aType.getDimSize(rank - 1),
            n = bType.getDimSize(rank - 1);
    Type accType = cType.getElementType();
    if (hasMmaLayout(cType)) {
      DotOperand x{a.getA(), stagedOperandAddress(rw, loc, op.getA(), state), aType};
      DotOperand y{a.getB(), stagedOperandAddress(rw, loc, op.getB(), state), bType};
      x.smemLayout = stagedOperandLayout(op.getA(), state);
      y.smemLayout = stagedOperandLayout(op.getB(), state);
      if (Value acc = registerA(op)) {
        x = {rw.getRemappedValue(acc), Value(), aType, /*kMajor=*/false,
             /*inAccumulatorLayout=*/true};
        x.inFragmentOrder = hasWgmmaF8ALayout(acc.getType());
      }
      if (tt::TransOp trans = mnMajorA(op); trans && !x.inAccumulatorLayout) {
        // A as the MN-major tile it transposes (TransLowering left it).
        Value src = trans.getSrc();
        x = {rw.getRemappedValue(src), stagedOperandAddress(rw, loc, src, state),
             cast<RankedTensorType>(src.getType())};
        x.mnMajor = true;
        x.smemLayout = stagedOperandLayout(src, state);
        if (Value acc = mnAccumulatorA(op)) {
          // Written from the accumulator's registers (its cast moved nothing).
          x.regs = rw.getRemappedValue(acc);
          x.regsLayout = cast<RankedTensorType>(acc.getType());
        }
      }
      if (tt::TransOp trans = kMajorB(op)) {
        // B as the K-major tile it transposes (TransLowering left it).
        Value src = trans.getSrc();
        y = {rw.getRemappedValue(src), stagedOperandAddress(rw, loc, src, state),
             cast<RankedTensorType>(src.getType()), /*kMajor=*/true};
        y.smemLayout = stagedOperandLayout(src, state);
      }
      FailureOr<Value> d = hasWgmmaLayout(cType)
                               ? lowerDotToWgmma(rw, op, x, y, a.getC(), state)
                               : lowerDotToMma(rw, op, x, y, a.getC(), state);
      if (failed(d))
        return op.emitError("internal error: no mma layout for this dot");
      rw.replaceOp(op, *d);
      return success();
    }
    int64_t bOffset = smemWriteTensor(rw, loc, state, 0, a.getA(), batch * m * k);
    smemWriteTensor(rw, loc, state, bOffset, a.getB(), batch * k * n);
    // Per output element: where its row of A starts (b*m*k + r*k) and its
    // column of B (b*k*n + c).
    SmallVector<Value> rows, cols;
    for (Value idx : slotElementIndices(rw, loc, state, batch * m * n)) {
      Value bi = arith::DivUIOp::create(rw, loc, idx, constI32(rw, loc, m * n));
      Value rc = arith::RemUIOp::create(rw, loc, idx, constI32(rw, loc, m * n));
      Value r = arith::DivUIOp::create(rw, loc, rc, constI32(rw, loc, n));
      rows.push_back(arith::AddIOp::create(
          rw, loc, arith::MulIOp::create(rw, loc, bi, constI32(rw, loc, m * k)),
          arith::MulIOp::create(rw, loc, r, constI32(rw, loc, k))));
      cols.push_back(arith::AddIOp::create(
          rw, loc, arith::MulIOp::create(rw, loc, bi, constI32(rw, loc, k * n)),
          arith::RemUIOp::create(rw, loc, rc, constI32(rw, loc, n))));
    }
    auto loop = scf::ForOp::create(rw, loc, constI32(rw, loc, 0), constI32(rw, loc, k),
                                   constI32(rw, loc, 1), ValueRange{a.getC()});
    {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(loop.getBody());
      Value kk = loop.getInductionVar();
      Value acc = loop.getRegionIterArgs()[0];
      Value bRow = arith::MulIOp::create(rw, loc, kk, constI32(rw, loc, n));
      SmallVector<Value> out;
      for (size_t s = 0; s < rows.size(); ++s) {
        Value x = smemLoad(rw, loc, state, aType.getElementType(), 0,
                           arith::AddIOp::create(rw, loc, rows[s], kk));
        Value y = smemLoad(rw, loc, state, bType.getElementType(), bOffset,
                           arith::AddIOp::create(rw, loc, bRow, cols[s]));
        x = convertScalar(rw, loc, x, accType);
        y = convertScalar(rw, loc, y, accType);
        Value c = extractSlot(rw, loc, acc, s);
        out.push_back(isa<FloatType>(accType)
                          ? (Value)math::FmaOp::create(rw, loc, x, y, c)
                          : (Value)arith::AddIOp::create(
                                rw, loc, c, arith::MulIOp::create(rw, loc, x, y)));
      }
      scf::YieldOp::create(rw, loc, buildVector(rw, loc, out));
    }
    rw.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

OperandSmemLayout cuda::writeAccumulatorSwizzled(OpBuilder &b, Location loc, SimtState &s,
                                                 Value perThread, RankedTensorType src) {
  OperandSmemLayout layout = operandSmemLayout(src, pgpu::SharedLayoutKind::swizzle_128b);
  reserveSmem(s, layout.bytes);
  barrier(b, loc);
  writeAccumulatorPairs(b, loc, s, s.smem, perThread, src, layout);
  return layout;
}

Value cuda::sliceMmaTiles(OpBuilder &b, Location loc, Value perThread, const MmaLayout &from,
                          const MmaLayout &to, int64_t tm0, int64_t tn0) {
  SmallVector<Value> elems;
  for (int64_t tm = 0; tm < to.tilesM; ++tm)
    for (int64_t tn = 0; tn < to.tilesN; ++tn)
      for (int64_t r = 0; r < 4; ++r)
        elems.push_back(
            extractSlot(b, loc, perThread, ((tm + tm0) * from.tilesN + tn + tn0) * 4 + r));
  return buildVector(b, loc, elems);
}

namespace {

/// A tensor-core accumulator [M, N] (pairs of adjacent columns per thread)
/// into the blocked layout (runs of `vec` adjacent elements per thread),
/// through shared memory laid out as wgmma's 128-byte swizzle (16-byte
/// units of a row permuted by XOR with row % 8): pairs go in as one store
/// each, runs come out as 16-byte loads, and neither side's warps conflict
/// on banks (the 8 rows a warp's pairs span, and the units a warp's runs
/// read, fall in different banks). Null where that does not apply (other
/// layouts, elements other than 16 and 32 bits, rows not a multiple of 128
/// bytes).
Value castAccumulatorToBlocked(ConversionPatternRewriter &rw, Location loc, SimtState &s,
                               Value perThread, RankedTensorType src, RankedTensorType dst) {
  if (!swizzlableAccumulator(src) || dst.getEncoding())
    return {};
  Type elem = src.getElementType();
  int64_t cols = src.getDimSize(1), eb = elem.getIntOrFloatBitWidth() / 8;
  BlockedLayout to(dst.getNumElements(), s.threads);
  if (to.vec * eb < 4 || cols % to.vec)
    return {};
  OperandSmemLayout layout = writeAccumulatorSwizzled(rw, loc, s, perThread, src);
  barrier(rw, loc);
  // Runs of `vec` start on a multiple of `vec`: pieces of up to 16 bytes
  // each lie in one unit.
  int64_t piece = std::min<int64_t>(to.vec, 16 / eb);
  auto pieceType = VectorType::get({piece}, elem);
  SlotCoordinates toSlots = slotCoordinates(rw, loc, s, dst);
  SmallVector<Value> toAddresses =
      layout.slotAddresses(rw, loc, s.smem, toSlots, piece, s.shiftedAddresses);
  SmallVector<Value> elems;
  for (size_t i = 0; i < toSlots.size(); i += piece) {
    Value v = LLVM::LoadOp::create(rw, loc, pieceType, toAddresses[i / piece], piece * eb);
    for (int64_t j = 0; j < piece; ++j)
      elems.push_back(vector::ExtractOp::create(rw, loc, v, j));
  }
  return buildVector(rw, loc, elems);
}

/// A change of layout: every element through shared memory.
struct LayoutCastLowering : SimtPattern<tensor::CastOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tensor::CastOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto src = cast<RankedTensorType>(op.getSource().getType());
    auto dst = cast<RankedTensorType>(op.getType());
    if (src.getShape() != dst.getShape())
      return op.emitError("internal error: tensor.cast changes the shape on CUDA");
    if (src.getEncoding() == dst.getEncoding()) {
      rw.replaceOp(op, a.getSource());
      return success();
    }
    if (hasWgmmaLayout(src) && hasWgmmaF8ALayout(dst)) {
      // f8 from the accumulator layout into wgmma's A-fragment order: each
      // m64 block's 32-column steps, four registers each, gathered across
      // the quads (f8AFragment), or the thread's own where the keys were
      // loaded in fragment order.
      std::optional<MmaLayout> l = mmaLayoutOf(src);
      if (!l || src.getDimSize(1) % 32)
        return op.emitError("internal error: an f8 A fragment cast of ") << src;
      int64_t k = src.getDimSize(1);
      bool permutedKeys = op->hasAttr(pgpu::kKeysInFragmentOrderAttrName);
      SmallVector<Value> words;
      for (int64_t t = 0; t < l->tilesM; ++t)
        for (int64_t ks = 0; ks < k / 32; ++ks)
          llvm::append_range(
              words, permutedKeys
                         ? f8AFragmentOfPermutedKeys(rw, loc, a.getSource(), ks, t * k / 2)
                         : f8AFragment(rw, loc, a.getSource(), ks, t * k / 2, state.tid));
      // The words read as bytes (whole registers, not byte by byte).
      Value packed = buildVector(rw, loc, words);
      rw.replaceOpWithNewOp<vector::BitCastOp>(
          op, VectorType::get({4 * (int64_t)words.size()}, rw.getI8Type()), packed);
      return success();
    }
    if (llvm::all_of(op->getUsers(), [&](Operation *u) {
          // wgmma takes A from the registers of the source, or a dot's
          // transposed A is written from them (dS^T in attention backward
          // is both dK's A and, transposed, dQ's): nothing to move.
          if (auto dot = dyn_cast<tt::DotOp>(u))
            return dot.getB() != op.getResult() && registerA(dot) == op.getSource();
          auto trans = dyn_cast<tt::TransOp>(u);
          return trans && !trans->use_empty() && llvm::all_of(trans->getUsers(), [&](Operation *v) {
                   auto dot = dyn_cast<tt::DotOp>(v);
                   return dot && mnAccumulatorA(dot) == op.getSource();
                 });
        })) {
      rw.replaceOpWithNewOp<LLVM::UndefOp>(op, getTypeConverter()->convertType(dst));
      return success();
    }
    // A splat needs no exchange: every thread already holds the value.
    SplatElementsAttr splat;
    if (matchPattern(op.getSource(), m_Constant(&splat))) {
      auto type = cast<VectorType>(getTypeConverter()->convertType(dst));
      rw.replaceOpWithNewOp<arith::ConstantOp>(
          op, type, SplatElementsAttr::get(type, splat.getSplatValue<Attribute>()));
      return success();
    }
    // Index arithmetic (a causal mask's iota compares): each thread
    // computes its elements in the new layout instead of exchanging them.
    if (Value v = rematerializeIn(rw, loc, state, op.getSource(), dst)) {
      rw.replaceOp(op, v);
      return success();
    }
    if (Value v = castAccumulatorToBlocked(rw, loc, state, a.getSource(), src, dst)) {
      rw.replaceOp(op, v);
      return success();
    }
    smemWriteTensor(rw, loc, state, 0, a.getSource(), src, /*padded=*/true);
    Type elem = cast<VectorType>(a.getSource().getType()).getElementType();
    SmallVector<Value> elems;
    for (Value idx : slotElementIndices(rw, loc, state, dst))
      elems.push_back(smemLoad(rw, loc, state, elem, 0, paddedIndex(rw, loc, idx)));
    rw.replaceOp(op, buildVector(rw, loc, elems));
    return success();
  }
};

} // namespace

namespace {
/// A static slice of a tensor (the epilogue of JAX's matmuls cuts an
/// accumulator into 64x64 tiles): whole tiles of a tensor-core layout are
/// the threads' own slots; otherwise the source goes through the scratch
/// area, each element at its row-major index, and each thread reads its
/// slots of the slice from there.
struct ExtractSliceLowering : SimtPattern<tensor::ExtractSliceOp> {
  using SimtPattern::SimtPattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ScratchArea area(state, op);
    Location loc = op.getLoc();
    auto src = cast<RankedTensorType>(op.getSource().getType());
    auto dst = cast<RankedTensorType>(op.getType());
    if (!op.hasUnitStride() || src.getRank() != dst.getRank() ||
        llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic) ||
        llvm::any_of(op.getStaticSizes(), ShapedType::isDynamic))
      return op.emitError("this target takes static slices of unit stride that keep the rank");
    std::optional<MmaLayout> from = mmaLayoutOf(src), to = mmaLayoutOf(dst);
    if (from && to) {
      // Whole tiles of a tensor-core layout (pallas-assign-layouts kept
      // the layout only for those): the slots of the tiles in the slice.
      rw.replaceOp(op, sliceMmaTiles(rw, loc, a.getSource(), *from, *to,
                                     op.getStaticOffsets()[0] / from->tileRowStride(),
                                     op.getStaticOffsets()[1] / 8));
      return success();
    }
    if (hasMmaLayout(dst))
      return op.emitError("internal error: a slice into a tensor-core layout of another");
    Type elem = storageType(src.getElementType());
    smemWriteTensor(rw, loc, state, /*offset=*/0, a.getSource(), src);
    SmallVector<Value> elems;
    for (Value index : slotElementIndices(rw, loc, state, dst)) {
      SmallVector<Value> at = unravel(rw, loc, index, dst.getShape());
      for (auto [d, offset] : llvm::enumerate(op.getStaticOffsets()))
        if (offset)
          at[d] = arith::AddIOp::create(rw, loc, at[d], constI32(rw, loc, offset));
      elems.push_back(smemLoad(rw, loc, state, elem, 0, ravel(rw, loc, at, src.getShape())));
    }
    rw.replaceOp(op, buildVector(rw, loc, elems));
    return success();
  }
};
} // namespace

void cuda::populateSimtDataMovementPatterns(const TypeConverter &tc,
                                            RewritePatternSet &patterns,
                                            SimtState &state) {
  patterns.add<BroadcastLowering, TransLowering, JoinLowering, ReduceLowering,
               ScanLowering, DotLowering, LayoutCastLowering, ExtractSliceLowering,
               IndexCompareLowering>(
      tc, patterns.getContext(), state);
}
