//===- MergeIterations.cpp - two trips of a row loop become one -----------===//
//
// A loop whose trip i works on rows [i B, (i + 1) B) of its refs (loads
// them, stores or adds into them, computes their positions) and carries
// only sums of dots contracting those rows computes the same running half
// as many trips over 2B rows each. The kernel is retyped in place: every
// tensor holding the step's rows doubles along them, the offsets step by
// 2B, the bounds halve. Flash attention's backward walks 64-row query
// blocks under 128-row key blocks; on two warpgroups a dot of 64 rows
// splits its columns, one of 128 gives each warpgroup an m64 block.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Indexers.h"
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/BlockDims.h"
#include "pallas/Passes/LoopFootprint.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Passes/RefAccess.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallSet.h"

#include <numeric>

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASMERGEITERATIONS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// A positive number `v` is known to be a multiple of (1 where nothing is
/// known): constants, products, sums, and quotients by constants that
/// divide the known factor.
int64_t knownMultiple(Value v, int depth = 0) {
  constexpr int64_t kAny = int64_t(1) << 30;
  if (std::optional<int64_t> c = constantOf(v))
    return *c == 0 ? kAny : std::min(std::abs(*c), kAny);
  Operation *op = v.getDefiningOp();
  if (!op || depth > 8)
    return 1;
  auto of = [&](Value x) { return knownMultiple(x, depth + 1); };
  if (auto mul = dyn_cast<arith::MulIOp>(op))
    return std::min(of(mul.getLhs()) * of(mul.getRhs()), kAny);
  if (auto add = dyn_cast<arith::AddIOp>(op))
    return std::gcd(of(add.getLhs()), of(add.getRhs()));
  if (isa<arith::MinSIOp, arith::MaxSIOp>(op))
    return std::gcd(of(op->getOperand(0)), of(op->getOperand(1)));
  if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
    std::optional<int64_t> d = constantOf(op->getOperand(1));
    int64_t m = of(op->getOperand(0));
    return d && *d > 0 && m % *d == 0 ? m / *d : 1;
  }
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(op))
    return of(op->getOperand(0));
  return 1;
}

using DimMask = uint64_t;

/// A store or an atomic read-modify-write: the writes a merged loop may
/// make (a swap reads what it writes).
std::optional<RefWrite> writeOf(Operation *op) {
  if (auto store = dyn_cast<StoreOp>(op))
    return RefWrite::of(store);
  if (auto atomic = dyn_cast<AtomicRMWOp>(op))
    return RefWrite::of(atomic);
  return std::nullopt;
}

/// The step's rows through one loop: which dims of which tensors hold
/// them. Fails (ok false) on anything whose meaning would change with
/// twice the rows a trip.
class StepRows {
public:
  StepRows(scf::ForOp loop, int64_t rows) : loop(loop), rows(rows) {}

  bool analyse();
  /// Dims of `v` holding the step's rows.
  DimMask dimsOf(Value v) const { return marks.lookup(v); }
  ArrayRef<arith::MulIOp> offsetOps() const { return offsets; }
  /// Marked values defined before the loop (iotas, splats): cloned into it.
  ArrayRef<Operation *> hoisted() const { return outside; }
  /// Dots whose result dim 0 (M) holds the step's rows.
  int64_t rowDots() const { return mDots; }
  /// Dots whose result dim 1 (N) holds the step's rows.
  int64_t columnDots() const { return nDots; }

private:
  void mark(Value v, DimMask m);
  bool visit(Operation *op);
  bool accessDims(Value ref, ArrayRef<int64_t> encoded, ValueRange indices, Value value);
  bool isOffset(Value v) const {
    auto mul = v.getDefiningOp<arith::MulIOp>();
    return mul && llvm::is_contained(offsets, mul);
  }
  bool contractedUseOk(Value result, Value acc);

  scf::ForOp loop;
  int64_t rows;
  DenseMap<Value, DimMask> marks;
  SmallVector<Value> worklist;
  SmallVector<arith::MulIOp> offsets;
  SmallVector<Operation *> outside;
  int64_t mDots = 0, nDots = 0;
  /// Carried values checked to be sums of dots contracting the rows.
  llvm::SmallSet<unsigned, 4> sums;
};

void StepRows::mark(Value v, DimMask m) {
  DimMask &have = marks[v];
  if ((have | m) == have)
    return;
  have |= m;
  worklist.push_back(v);
}

/// A load, store or atomic: each marked dim of `value` must be a slice of
/// the step's rows (`ds(i * B, B)`), and each such slice marks its dim.
bool StepRows::accessDims(Value ref, ArrayRef<int64_t> encoded, ValueRange indices,
                          Value value) {
  auto type = cast<RefType>(ref.getType());
  IndexerList list = IndexerList::decode(encoded).expandedFor(type.getRank());
  if (list.hasTensorIndexer())
    return !dimsOf(value);
  DimMask sliced = 0;
  unsigned out = 0, operand = 0;
  for (const Indexer &i : list.get()) {
    Value index = i.takesOperand() ? indices[operand++] : Value();
    if (index && isOffset(index)) {
      if (i.kind != IndexerKind::Slice || i.size != rows || i.stride != 1)
        return false;
      sliced |= DimMask(1) << out;
    }
    if (i.isSlice())
      ++out;
  }
  auto t = dyn_cast<RankedTensorType>(value.getType());
  if (!t)
    return !sliced;
  if (dimsOf(value) & ~sliced)
    return false;
  mark(value, sliced);
  return true;
}

/// `result`, a dot contracting the step's rows (a partial sum), may only
/// be added to a carried value that the loop yields back, nothing else:
/// then two trips' partial sums add up as one trip's does.
bool StepRows::contractedUseOk(Value result, Value acc) {
  auto carried = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
      return std::nullopt;
    return arg.getArgNumber() - 1;
  };
  auto yieldedAt = [&](Value v, unsigned j) {
    return v.hasOneUse() && isa<scf::YieldOp>(*v.getUsers().begin()) &&
           v.getUses().begin()->getOperandNumber() == j;
  };
  if (acc) {
    std::optional<unsigned> j = carried(acc);
    if (!j || !acc.hasOneUse() || !yieldedAt(result, *j))
      return false;
    sums.insert(*j);
    return true;
  }
  if (!result.hasOneUse())
    return false;
  auto add = dyn_cast<arith::AddFOp>(*result.getUsers().begin());
  if (!add)
    return false;
  Value other = add.getLhs() == result ? add.getRhs() : add.getLhs();
  std::optional<unsigned> j = carried(other);
  if (!j || !other.hasOneUse() || !yieldedAt(add.getResult(), *j))
    return false;
  sums.insert(*j);
  return true;
}

bool StepRows::visit(Operation *op) {
  if (isa<arith::ConstantOp, IotaOp>(op)) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(op->getAttr("value"));
    if (isa<arith::ConstantOp>(op) && isa<RankedTensorType>(op->getResult(0).getType()) &&
        (!dense || !dense.isSplat()))
      return false;
    if (!loop->isAncestor(op))
      outside.push_back(op);
    return true;
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    SmallVector<int64_t> map = bc.getInputToResultDims();
    DimMask in = isa<RankedTensorType>(bc.getInput().getType()) ? dimsOf(bc.getInput()) : 0;
    DimMask res = dimsOf(bc.getResult()), toResult = 0, toInput = 0;
    for (auto [i, r] : llvm::enumerate(map)) {
      if (in & (DimMask(1) << i))
        toResult |= DimMask(1) << r;
      if (res & (DimMask(1) << r))
        toInput |= DimMask(1) << i;
    }
    mark(bc.getResult(), toResult);
    if (toInput)
      mark(bc.getInput(), toInput);
    // Outside the loop only a loop-invariant tensor may be broadcast along
    // the step's rows (its other dims unmarked): cloned in.
    if (!loop->isAncestor(op)) {
      if (in || toInput)
        return false;
      outside.push_back(op);
    }
    return true;
  }
  if (!loop->isAncestor(op))
    return false; // (a load before the loop, an argument: cannot grow)
  if (auto load = dyn_cast<LoadOp>(op)) {
    DimMask m = dimsOf(load.getResult());
    for (Value v : {load.getMask(), load.getOther()})
      if (v && isa<RankedTensorType>(v.getType()))
        m |= dimsOf(v);
    mark(load.getResult(), m);
    if (!accessDims(load.getRef(), load.getIndexers(), load.getIndices(), load.getResult()))
      return false;
    m = dimsOf(load.getResult());
    for (Value v : {load.getMask(), load.getOther()})
      if (v && isa<RankedTensorType>(v.getType()))
        mark(v, m);
    return true;
  }
  if (std::optional<RefWrite> w = writeOf(op)) {
    if (w->returnsOld && !op->getResult(0).use_empty())
      return false;
    DimMask m = dimsOf(w->value) | (w->mask ? dimsOf(w->mask) : 0);
    mark(w->value, m);
    if (!accessDims(w->ref, w->indexers, w->indices, w->value))
      return false;
    // A write of the same elements on every trip would keep another trip's.
    if (!dimsOf(w->value))
      return false;
    if (w->mask && isa<RankedTensorType>(w->mask.getType()))
      mark(w->mask, dimsOf(w->value));
    if (w->returnsOld)
      mark(op->getResult(0), dimsOf(w->value));
    return true;
  }
  if (auto dot = dyn_cast<DotOp>(op)) {
    if (dot.getResult().getType().getRank() != 2)
      return false;
    auto bit = [](DimMask m, unsigned d) { return (m >> d) & 1; };
    unsigned am = dot.getTransposeLhs() ? 1 : 0, ak = 1 - am;
    unsigned bk = dot.getTransposeRhs() ? 1 : 0, bn = 1 - bk;
    DimMask a = dimsOf(dot.getLhs()), b = dimsOf(dot.getRhs());
    DimMask r = dimsOf(dot.getResult()) | (dot.getAcc() ? dimsOf(dot.getAcc()) : 0);
    bool m = bit(a, am) || bit(r, 0), n = bit(b, bn) || bit(r, 1);
    bool k = bit(a, ak) || bit(b, bk);
    mark(dot.getLhs(), DimMask(m) << am | DimMask(k) << ak);
    mark(dot.getRhs(), DimMask(k) << bk | DimMask(n) << bn);
    mark(dot.getResult(), DimMask(m) | DimMask(n) << 1);
    if (dot.getAcc())
      mark(dot.getAcc(), DimMask(m) | DimMask(n) << 1);
    if (k && (m || n || !contractedUseOk(dot.getResult(), dot.getAcc())))
      return false;
    return true;
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto in = cast<RankedTensorType>(reduce.getInput().getType());
    ArrayRef<int64_t> axes = reduce.getAxes();
    DimMask inM = dimsOf(reduce.getInput());
    DimMask outM = isa<RankedTensorType>(reduce.getResult().getType())
                       ? dimsOf(reduce.getResult())
                       : 0;
    // The kept dims in order.
    DimMask toOut = 0, toIn = 0;
    unsigned o = 0;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      bool reduced = llvm::is_contained(axes, d);
      if (reduced) {
        if (inM & (DimMask(1) << d))
          return false; // (a sum or max over the step's rows: not per row)
        continue;
      }
      if (inM & (DimMask(1) << d))
        toOut |= DimMask(1) << o;
      if (outM & (DimMask(1) << o))
        toIn |= DimMask(1) << d;
      ++o;
    }
    if (toOut)
      mark(reduce.getResult(), toOut);
    mark(reduce.getInput(), toIn);
    return true;
  }
  // Elementwise: every tensor operand and result of one shape, dim for dim.
  if (op->hasTrait<OpTrait::Elementwise>() || isa<arith::SelectOp>(op)) {
    DimMask m = 0;
    SmallVector<Value> tensors;
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (isa<RankedTensorType>(v.getType())) {
        tensors.push_back(v);
        m |= dimsOf(v);
      }
    for (Value v : tensors)
      mark(v, m);
    return true;
  }
  return false;
}

bool StepRows::analyse() {
  Value iv = loop.getInductionVar();
  // The trip's rows: i * B, the induction variable's only use.
  for (OpOperand &use : iv.getUses()) {
    auto mul = dyn_cast<arith::MulIOp>(use.getOwner());
    Value other = mul ? mul->getOperand(1 - use.getOperandNumber()) : Value();
    if (!mul || constantOf(other) != rows)
      return false;
    offsets.push_back(mul);
  }
  if (offsets.empty())
    return false;
  // Seeds: the accesses slicing the step's rows. Nothing else writes or
  // waits: a ref read and written in the loop, or a side effect of another
  // kind, may see the trips' order.
  DenseSet<Value> read, written;
  WalkResult seeded = loop.getBody()->walk([&](Operation *op) {
    bool fine = !op->getNumRegions();
    if (auto load = dyn_cast<LoadOp>(op)) {
      read.insert(load.getRef());
      fine &= accessDims(load.getRef(), load.getIndexers(), load.getIndices(), load.getResult());
    } else if (std::optional<RefWrite> w = writeOf(op)) {
      written.insert(w->ref);
      fine &= accessDims(w->ref, w->indexers, w->indices, w->value);
    } else {
      fine &= isMemoryEffectFree(op) || isa<scf::YieldOp>(op);
    }
    return fine ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (seeded.wasInterrupted() || llvm::any_of(written, [&](Value r) { return read.count(r); }))
    return false;
  // Offsets: slice starts (checked above) or broadcast into positions.
  for (arith::MulIOp mul : offsets)
    for (Operation *user : mul->getUsers())
      if (!isa<LoadOp, StoreOp, AtomicRMWOp>(user)) {
        auto bc = dyn_cast<BroadcastOp>(user);
        if (!bc)
          return false;
        worklist.push_back(bc.getResult()); // checked to be marked below
      }
  // Every op taking or giving a marked value agrees (a fixpoint). A value
  // made before the loop is copied into it: only its uses there count.
  bool ok = true;
  while (!worklist.empty() && ok) {
    Value v = worklist.pop_back_val();
    SmallVector<Operation *> ops;
    if (Operation *def = v.getDefiningOp())
      ops.push_back(def);
    for (Operation *user : v.getUsers())
      if (loop->isAncestor(user) || user == loop.getOperation())
        ops.push_back(user);
    for (Operation *op : ops) {
      if (isa<scf::YieldOp>(op)) {
        if (op->getParentOp() == loop && dimsOf(v))
          ok = false; // (the carried values keep their shapes)
        continue;
      }
      if (op == loop.getOperation()) {
        ok &= !dimsOf(v);
        continue;
      }
      ok &= visit(op);
    }
  }
  if (!ok)
    return false;
  // Every other carried value goes through untouched (a count of trips,
  // a running max: half as many trips would change it).
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [j, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (!sums.contains(j) && yield.getOperand(j) != arg)
      return false;
  // Every write is of the step's rows (the same elements written on every
  // trip would keep another trip's).
  WalkResult writes = loop.getBody()->walk([&](Operation *op) {
    std::optional<RefWrite> w = writeOf(op);
    return w && !dimsOf(w->value) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (writes.wasInterrupted())
    return false;
  // Positions: the broadcast offsets hold the step's rows.
  for (arith::MulIOp mul : offsets)
    for (Operation *user : mul->getUsers())
      if (auto bc = dyn_cast<BroadcastOp>(user); bc && !dimsOf(bc.getResult()))
        return false;
  // Contracted dots were checked as visited; every dot that reads the
  // step's rows was visited. Count those whose rows are the step's.
  loop.getBody()->walk([&](DotOp dot) {
    if (dimsOf(dot.getResult()) & 1)
      ++mDots;
    if (dimsOf(dot.getResult()) & 2)
      ++nDots;
  });
  // Copied in program order: each before the loop in its block.
  llvm::sort(outside);
  outside.erase(std::unique(outside.begin(), outside.end()), outside.end());
  if (llvm::any_of(outside, [&](Operation *op) { return op->getBlock() != loop->getBlock(); }))
    return false;
  llvm::sort(outside, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

struct MergeIterationsPass
    : public pallas::impl::PallasMergeIterationsBase<MergeIterationsPass> {
  using PallasMergeIterationsBase::PallasMergeIterationsBase;

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      LaunchAttr launch = getLaunch(kernel);
      if (!launch || launch.getExpanded() || launch.getNumWarps() != warps)
        continue;
      SmallVector<scf::ForOp> loops;
      kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        merge(loop);
    }
  }

  /// Whether a thread's share of what the loop holds at twice the rows
  /// (loopHeldElements: the carried values and the two largest tensors of
  /// the step's rows, 32-bit or wider) fits `max-registers`.
  bool fits(scf::ForOp loop, const StepRows &step) {
    int64_t held = loopHeldElements(loop, [&](Value v) -> int64_t {
      auto t = cast<RankedTensorType>(v.getType());
      if (!step.dimsOf(v) || t.getElementTypeBitWidth() < 32)
        return 0;
      return t.getNumElements() * 2;
    });
    return held <= maxRegisters * 32 * warps;
  }

  void merge(scf::ForOp loop) {
    std::optional<int64_t> step = constantOf(loop.getStep());
    if (step != 1 || knownMultiple(loop.getLowerBound()) % 2 ||
        knownMultiple(loop.getUpperBound()) % 2)
      return;
    // The rows a trip: what its first offset multiplies by.
    Value iv = loop.getInductionVar();
    if (iv.use_empty())
      return;
    auto mul = dyn_cast<arith::MulIOp>(*iv.getUsers().begin());
    if (!mul)
      return;
    Value other = mul.getLhs() == iv ? mul.getRhs() : mul.getLhs();
    std::optional<int64_t> rows = constantOf(other);
    // Pays where a dot of the step's rows has fewer m64 blocks than the
    // CTA's warpgroups, and twice the rows make one each.
    int64_t groups = warps / 4;
    if (!rows || *rows * 2 != 64 * groups)
      return;
    StepRows analysis(loop, *rows);
    if (!analysis.analyse() || !(analysis.rowDots() || (columns && analysis.columnDots())) ||
        !fits(loop, analysis))
      return;
    rewrite(loop, analysis, *rows);
  }

  void rewrite(scf::ForOp loop, const StepRows &step, int64_t rows) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    // Marked values made before the loop: a copy of each in the body.
    // (The copies take the marks of what they replace.)
    IRMapping map;
    DenseMap<Value, DimMask> copyMarks;
    b.setInsertionPointToStart(loop.getBody());
    for (Operation *op : step.hoisted()) {
      Operation *copy = b.clone(*op, map);
      for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults())) {
        copyMarks[to] = step.dimsOf(from);
        from.replaceUsesWithIf(to, [&](OpOperand &use) {
          return loop->isAncestor(use.getOwner()) && use.getOwner() != copy;
        });
      }
    }
    auto grow = [&](Value v, DimMask m) {
      SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
      for (unsigned d = 0; d < shape.size(); ++d)
        if (m & (DimMask(1) << d))
          shape[d] *= 2;
      setShape(v, shape);
    };
    DenseMap<Value, DimMask> marks;
    loop.getBody()->walk([&](Operation *op) {
      for (Value v : op->getResults())
        if (isa<RankedTensorType>(v.getType()))
          if (DimMask m = step.dimsOf(v) | copyMarks.lookup(v))
            marks[v] = m;
    });
    for (auto [v, m] : marks) {
      grow(v, m);
      if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
        auto dense = cast<DenseElementsAttr>(cst.getValue());
        cst.setValueAttr(DenseElementsAttr::get(cast<ShapedType>(v.getType()),
                                                dense.getSplatValue<Attribute>()));
      }
    }
    // Slices of the step's rows: twice as long.
    auto widen = [&](Value ref, ArrayRef<int64_t> encoded, ValueRange indices,
                     function_ref<void(ArrayRef<int64_t>)> set) {
      auto type = cast<RefType>(ref.getType());
      IndexerList list = IndexerList::decode(encoded).expandedFor(type.getRank());
      IndexerList out;
      unsigned operand = 0;
      bool changed = false;
      for (Indexer i : list.get()) {
        Value index = i.takesOperand() ? indices[operand++] : Value();
        auto mul = index ? index.getDefiningOp<arith::MulIOp>() : arith::MulIOp();
        if (mul && llvm::is_contained(step.offsetOps(), mul)) {
          i.size *= 2;
          changed = true;
        }
        out.push(i);
      }
      if (changed)
        set(out.encode());
    };
    loop.getBody()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op))
        widen(load.getRef(), load.getIndexers(), load.getIndices(),
              [&](ArrayRef<int64_t> e) { load.setIndexers(e); });
      else if (auto store = dyn_cast<StoreOp>(op))
        widen(store.getRef(), store.getIndexers(), store.getIndices(),
              [&](ArrayRef<int64_t> e) { store.setIndexers(e); });
      else if (auto atomic = dyn_cast<AtomicRMWOp>(op))
        widen(atomic.getRef(), atomic.getIndexers(), atomic.getIndices(),
              [&](ArrayRef<int64_t> e) { atomic.setIndexers(e); });
    });
    // Offsets step by 2B; the bounds halve (both even).
    for (arith::MulIOp mul : step.offsetOps()) {
      b.setInsertionPoint(mul);
      Value iv = loop.getInductionVar();
      Value twice = arith::ConstantOp::create(
          b, mul.getLoc(), b.getIntegerAttr(iv.getType(), 2 * rows));
      mul->setOperand(mul.getLhs() == iv ? 1 : 0, twice);
    }
    b.setInsertionPoint(loop);
    Value two = arith::ConstantOp::create(b, loc, b.getIntegerAttr(loop.getLowerBound().getType(), 2));
    loop.setLowerBound(arith::DivSIOp::create(b, loc, loop.getLowerBound(), two));
    loop.setUpperBound(arith::DivSIOp::create(b, loc, loop.getUpperBound(), two));
  }
};
} // namespace
