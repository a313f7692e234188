//===- MergeRowPrograms.cpp - two programs of row blocks become one -------===//
//
// A kernel whose programs along a grid axis each work on their own rows
// [p R, (p + 1) R) - slices ds(p * R, R) of whole refs, the axis's output
// blocks, positions iota + p * R - and never mix them computes the same
// as half as many programs of 2R rows each. The kernel is retyped in
// place: every tensor holding the program's rows doubles along them, the
// offsets step by 2R, the blocks the axis picks double and the axis's
// extent halves (index maps stay: block b of twice the rows covers what
// blocks 2b and 2b + 1 did). JAX's flash attention backward defaults to
// 32-row blocks on one warpgroup, half of a wgmma m64 block.
//
// With bounded-loops (the default), a loop whose bounds come from the
// program id (a causal scan) runs, in the merged program, the trips of
// both programs in order: those both run as one unguarded loop, from an
// even trip to an even trip (which pallas-merge-iterations may pair), and
// those before and after in loops whose trips keep the carried values of
// a program that has no such trip. The blocks every part reads alike (K
// and V) are staged once for all of them (pallas-stage-loads).
//
// pallas-merge-iterations follows the same rows through one loop's trips;
// here they are the program's, so every value of the kernel may hold them.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Indexers.h"
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/BlockDims.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Passes/RefAccess.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASMERGEROWPROGRAMS
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

using DimMask = uint64_t;

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

bool bit(DimMask m, unsigned d) { return (m >> d) & 1; }

/// Which dims of which values (refs and tensors) hold the program's rows.
/// Fails on anything whose meaning would change with twice the rows.
class ProgramRows {
public:
  ProgramRows(KernelOp kernel, int64_t rows) : kernel(kernel), rows(rows) {}

  /// `refs`: the kernel's ref arguments whose block the axis picks, with
  /// the ref dim it picks; `offsets`: the program id times the rows.
  bool analyse(ArrayRef<std::pair<BlockArgument, unsigned>> refs,
               ArrayRef<arith::MulIOp> offsets);
  DimMask dimsOf(Value v) const { return marks.lookup(v); }
  const DenseMap<Value, DimMask> &all() const { return marks; }

private:
  void mark(Value v, DimMask m) {
    DimMask &have = marks[v];
    if ((have | m) == have)
      return;
    have |= m;
    worklist.push_back(v);
  }
  bool isOffset(Value v) const {
    auto mul = v.getDefiningOp<arith::MulIOp>();
    return mul && llvm::is_contained(offsetOps, mul);
  }
  bool accessDims(Value ref, ArrayRef<int64_t> encoded, ValueRange indices, Value value);
  bool visit(Operation *op);
  bool joinCarried(ValueRange group);

  KernelOp kernel;
  int64_t rows;
  SmallVector<arith::MulIOp> offsetOps;
  DenseMap<Value, DimMask> marks;
  SmallVector<Value> worklist;
};

/// A load or store: each dim of `value` holding the rows is a slice
/// `ds(p * R, R)` of a ref, or all (`:`) of a ref dim the axis picks; and
/// each such dim holds them.
bool ProgramRows::accessDims(Value ref, ArrayRef<int64_t> encoded, ValueRange indices,
                             Value value) {
  auto type = cast<RefType>(ref.getType());
  IndexerList list = IndexerList::decode(encoded).expandedFor(type.getRank());
  DimMask refDims = dimsOf(ref);
  if (list.hasTensorIndexer())
    return !refDims && !dimsOf(value);
  DimMask held = 0;
  unsigned out = 0, operand = 0, refDim = 0;
  for (const Indexer &i : list.get()) {
    Value index = i.takesOperand() ? indices[operand++] : Value();
    bool picked = bit(refDims, refDim++);
    if (index && isOffset(index)) {
      if (picked || i.kind != IndexerKind::Slice || i.size != rows || i.stride != 1)
        return false;
      held |= DimMask(1) << out;
    } else if (picked) {
      if (i.kind != IndexerKind::Full)
        return false;
      held |= DimMask(1) << out;
    }
    if (i.isSlice())
      ++out;
  }
  if (!isa<RankedTensorType>(value.getType()))
    return !held;
  if (dimsOf(value) & ~held)
    return false;
  mark(value, held);
  return true;
}

/// Values that are one carried value of a loop or an if (its init, the
/// region's argument, what each region yields, the result) hold the same
/// dims.
bool ProgramRows::joinCarried(ValueRange group) {
  DimMask m = 0;
  for (Value v : group)
    m |= dimsOf(v);
  for (Value v : group)
    mark(v, m);
  return true;
}

bool ProgramRows::visit(Operation *op) {
  if (isa<arith::ConstantOp, IotaOp>(op)) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(op->getAttr("value"));
    return !isa<arith::ConstantOp>(op) || !isa<RankedTensorType>(op->getResult(0).getType()) ||
           (dense && dense.isSplat());
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    SmallVector<int64_t> map = bc.getInputToResultDims();
    bool tensorInput = isa<RankedTensorType>(bc.getInput().getType());
    DimMask in = tensorInput ? dimsOf(bc.getInput()) : 0;
    DimMask res = dimsOf(bc.getResult()), toResult = 0, toInput = 0;
    for (auto [i, r] : llvm::enumerate(map)) {
      if (bit(in, i))
        toResult |= DimMask(1) << r;
      if (bit(res, r))
        toInput |= DimMask(1) << i;
    }
    mark(bc.getResult(), toResult);
    if (tensorInput && toInput)
      mark(bc.getInput(), toInput);
    return true;
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    DimMask m = dimsOf(load.getResult());
    for (Value v : {load.getMask(), load.getOther()})
      if (v && isa<RankedTensorType>(v.getType()))
        m |= dimsOf(v);
    mark(load.getResult(), m);
    if (!accessDims(load.getRef(), load.getIndexers(), load.getIndices(), load.getResult()))
      return false;
    for (Value v : {load.getMask(), load.getOther()})
      if (v && isa<RankedTensorType>(v.getType()))
        mark(v, dimsOf(load.getResult()));
    return true;
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    RefWrite w = RefWrite::of(store);
    mark(w.value, dimsOf(w.value) | (w.mask ? dimsOf(w.mask) : 0));
    if (!accessDims(w.ref, w.indexers, w.indices, w.value))
      return false;
    if (w.mask && isa<RankedTensorType>(w.mask.getType()))
      mark(w.mask, dimsOf(w.value));
    return true;
  }
  if (auto dot = dyn_cast<DotOp>(op)) {
    if (dot.getResult().getType().getRank() != 2)
      return false;
    unsigned am = dot.getTransposeLhs() ? 1 : 0, ak = 1 - am;
    unsigned bk = dot.getTransposeRhs() ? 1 : 0, bn = 1 - bk;
    DimMask a = dimsOf(dot.getLhs()), b = dimsOf(dot.getRhs());
    DimMask r = dimsOf(dot.getResult()) | (dot.getAcc() ? dimsOf(dot.getAcc()) : 0);
    // A contraction over the rows would sum two programs' rows.
    if (bit(a, ak) || bit(b, bk))
      return false;
    bool m = bit(a, am) || bit(r, 0), n = bit(b, bn) || bit(r, 1);
    mark(dot.getLhs(), DimMask(m) << am);
    mark(dot.getRhs(), DimMask(n) << bn);
    mark(dot.getResult(), DimMask(m) | DimMask(n) << 1);
    if (dot.getAcc())
      mark(dot.getAcc(), DimMask(m) | DimMask(n) << 1);
    return true;
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto in = cast<RankedTensorType>(reduce.getInput().getType());
    ArrayRef<int64_t> axes = reduce.getAxes();
    DimMask inM = dimsOf(reduce.getInput());
    DimMask outM =
        isa<RankedTensorType>(reduce.getResult().getType()) ? dimsOf(reduce.getResult()) : 0;
    DimMask toOut = 0, toIn = 0;
    unsigned o = 0;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      if (llvm::is_contained(axes, d)) {
        if (bit(inM, d))
          return false; // (a sum or max over two programs' rows)
        continue;
      }
      if (bit(inM, d))
        toOut |= DimMask(1) << o;
      if (bit(outM, o))
        toIn |= DimMask(1) << d;
      ++o;
    }
    if (toOut)
      mark(reduce.getResult(), toOut);
    mark(reduce.getInput(), toIn);
    return true;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (unsigned j = 0; j < loop.getNumResults(); ++j)
      joinCarried({loop.getInitArgs()[j], loop.getRegionIterArgs()[j], yield.getOperand(j),
                   loop.getResult(j)});
    return true;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    for (unsigned j = 0; j < branch.getNumResults(); ++j) {
      SmallVector<Value> group{branch.getResult(j)};
      for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!r->empty())
          group.push_back(r->front().getTerminator()->getOperand(j));
      joinCarried(group);
    }
    return true;
  }
  if (auto yield = dyn_cast<scf::YieldOp>(op))
    return visit(yield->getParentOp());
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

bool ProgramRows::analyse(ArrayRef<std::pair<BlockArgument, unsigned>> refs,
                          ArrayRef<arith::MulIOp> offsets) {
  offsetOps.assign(offsets.begin(), offsets.end());
  for (auto [arg, dim] : refs) {
    // (A ref the axis picks goes to loads and stores alone.)
    if (llvm::any_of(arg.getUsers(), [](Operation *u) { return !isa<LoadOp, StoreOp>(u); }))
      return false;
    mark(arg, DimMask(1) << dim);
  }
  // Seeds: every access (slices of the rows, refs the axis picks). Only
  // loads and stores touch memory.
  WalkResult seeded = kernel.getBody().walk([&](Operation *op) {
    bool fine;
    if (auto load = dyn_cast<LoadOp>(op))
      fine = accessDims(load.getRef(), load.getIndexers(), load.getIndices(), load.getResult());
    else if (auto store = dyn_cast<StoreOp>(op))
      fine = accessDims(store.getRef(), store.getIndexers(), store.getIndices(),
                        store.getValue());
    else
      fine = isa<scf::ForOp, scf::IfOp, scf::YieldOp, ReturnOp>(op) ||
             (op->getNumRegions() == 0 && isMemoryEffectFree(op));
    return fine ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (seeded.wasInterrupted())
    return false;
  // Offsets are slice starts (checked above), broadcast into positions,
  // or parts of loop bounds (which the caller checked).
  for (arith::MulIOp mul : offsetOps)
    for (Operation *user : mul->getUsers())
      if (auto bc = dyn_cast<BroadcastOp>(user))
        worklist.push_back(bc.getResult()); // checked to be marked below
  // Every op taking or giving a marked value agrees (a fixpoint).
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    SmallVector<Operation *> ops;
    if (Operation *def = v.getDefiningOp())
      ops.push_back(def);
    else if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner()->getParentOp() != kernel)
      ops.push_back(arg.getOwner()->getParentOp());
    for (Operation *user : v.getUsers())
      ops.push_back(user);
    for (Operation *op : ops)
      if (!visit(op))
        return false;
  }
  // Every store writes the program's own rows: the same elements written
  // by both programs of a pair would keep one.
  WalkResult writes = kernel.getBody().walk([&](StoreOp store) {
    return dimsOf(store.getValue()) ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (writes.wasInterrupted())
    return false;
  // Positions: the broadcast offsets hold the rows; and a scalar cannot.
  for (arith::MulIOp mul : offsetOps)
    for (Operation *user : mul->getUsers())
      if (auto bc = dyn_cast<BroadcastOp>(user); bc && !dimsOf(bc.getResult()))
        return false;
  return true;
}

struct MergeRowProgramsPass
    : public pallas::impl::PallasMergeRowProgramsBase<MergeRowProgramsPass> {
  using PallasMergeRowProgramsBase::PallasMergeRowProgramsBase;

  void runOnOperation() override {
    SmallVector<KernelOp> kernels(getOperation().getOps<KernelOp>());
    for (KernelOp kernel : kernels)
      if (LaunchAttr launch = getLaunch(kernel);
          launch && !launch.getExpanded() && launch.getSizes().empty() &&
          !launch.hasSymbolicGrid() && launch.getNumWarps() == warps &&
          launch.getProgramOrder().empty())
        tryMerge(kernel, launch);
  }

  /// Scalar arithmetic a loop bound may be made of.
  static bool isBoundArith(Operation *op) {
    return isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp,
               arith::CeilDivSIOp, arith::FloorDivSIOp, arith::MinSIOp, arith::MaxSIOp,
               arith::IndexCastOp>(op) &&
           op->getNumResults() == 1 && op->getResult(0).getType().isIntOrIndex();
  }

  /// Whether `use` of a value computed from the program id goes, through
  /// scalar arithmetic (collected in `derived`), only into the bounds of
  /// loops of the kernel's body (collected in `loops`).
  static bool boundUse(OpOperand &use, Block &body, SetVector<Operation *> &derived,
                       SetVector<scf::ForOp> &loops, int depth = 0) {
    Operation *user = use.getOwner();
    if (auto loop = dyn_cast<scf::ForOp>(user)) {
      if (loop->getBlock() != &body || (use.get() != loop.getLowerBound() &&
                                        use.get() != loop.getUpperBound()) ||
          use.get() == loop.getStep() || llvm::is_contained(loop.getInitArgs(), use.get()))
        return false;
      loops.insert(loop);
      return true;
    }
    if (!isBoundArith(user) || depth > 16)
      return false;
    derived.insert(user);
    for (OpOperand &next : user->getResult(0).getUses())
      if (!boundUse(next, body, derived, loops, depth + 1))
        return false;
    return true;
  }

  /// How a kernel reads its program id along one axis: as offsets (the id
  /// times `rows`: slice starts and positions) and in loop bounds.
  struct AxisReads {
    unsigned axis;
    SmallVector<ProgramIdOp> pids;
    SmallVector<arith::MulIOp> offsets;
    /// Ops computing bounds from the id (offsets among them where a bound
    /// uses one), and the loops whose bounds they are.
    SetVector<Operation *> derived;
    SetVector<scf::ForOp> boundedLoops;
  };

  /// The one kernel axis whose program id the kernel reads, and how.
  static std::optional<AxisReads> rowAxis(KernelOp kernel, int64_t rows) {
    AxisReads reads;
    std::optional<unsigned> axis;
    bool ok = true;
    Block &body = kernel.getBody().front();
    kernel.walk([&](ProgramIdOp pid) {
      if (axis && *axis != pid.getAxis())
        ok = false;
      axis = pid.getAxis();
      reads.pids.push_back(pid);
      for (OpOperand &use : pid->getUses()) {
        auto mul = dyn_cast<arith::MulIOp>(use.getOwner());
        Value other = mul ? mul->getOperand(1 - use.getOperandNumber()) : Value();
        if (!mul || constantOf(other) != rows) {
          ok &= boundUse(use, body, reads.derived, reads.boundedLoops);
          continue;
        }
        reads.offsets.push_back(mul);
        for (OpOperand &offsetUse : mul->getUses())
          if (!isa<LoadOp, StoreOp, BroadcastOp>(offsetUse.getOwner())) {
            reads.derived.insert(mul);
            ok &= boundUse(offsetUse, body, reads.derived, reads.boundedLoops);
          }
      }
    });
    if (!ok || !axis || reads.offsets.empty())
      return std::nullopt;
    WalkResult counted = kernel.walk([&](NumProgramsOp np) {
      return np.getAxis() == *axis ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (counted.wasInterrupted())
      return std::nullopt;
    reads.axis = *axis;
    return reads;
  }

  /// Each pure op with several uses gets a copy per use, so that each
  /// use's rows are its own (a zero splat may start one loop's sum of the
  /// rows and another's of other rows).
  static void untie(KernelOp kernel) {
    SmallVector<Operation *> ops;
    kernel.getBody().walk([&](Operation *op) {
      if (op->getNumRegions() == 0 && op->getNumResults() == 1 && isMemoryEffectFree(op) &&
          isa<RankedTensorType>(op->getResult(0).getType()))
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops)) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back(&use);
      if (uses.size() < 2)
        continue;
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      for (OpOperand *use : llvm::drop_begin(uses))
        use->set(b.clone(*op)->getResult(0));
    }
  }

  void tryMerge(KernelOp original, LaunchAttr launch) {
    std::optional<AxisReads> probe = rowAxis(original, rows);
    if (!probe || (!boundedLoops && !probe->boundedLoops.empty()))
      return;
    unsigned axis = probe->axis + launch.getBatchAxes();
    ArrayRef<int64_t> grid = launch.getGrid();
    if (axis >= launch.numLeadingParallelAxes() || grid[axis] % 2)
      return;
    // Refs whose block the axis picks: by the axis alone, in one dim.
    Block &entry = original.getBody().front();
    SmallVector<std::pair<unsigned, unsigned>> picked; // (argument, ref dim)
    for (BlockArgument arg : entry.getArguments()) {
      BlockSpecAttr spec = getBlockSpec(original, arg.getArgNumber());
      if (!spec)
        return;
      if (spec.getRole() == ArgRole::scratch)
        continue;
      AffineMap map = spec.getIndexMap();
      if (!map)
        return; // (index functions: what they read is unknown)
      std::optional<unsigned> dim;
      unsigned refDim = 0;
      for (unsigned k = 0; k < spec.getBlock().size(); ++k) {
        bool squeezed = spec.isSqueezed(k);
        AffineExpr e = map.getResult(k);
        if (e.isFunctionOfDim(axis)) {
          auto d = dyn_cast<AffineDimExpr>(e);
          if (squeezed || !d || dim)
            return;
          dim = refDim;
        }
        if (!squeezed)
          ++refDim;
      }
      if (dim)
        picked.push_back({arg.getArgNumber(), *dim});
    }

    // The analysis runs on a copy whose pure ops are untied; it replaces
    // the kernel where the merge applies.
    OpBuilder b(original);
    auto kernel = cast<KernelOp>(b.clone(*original));
    auto drop = [&] { kernel->erase(); };
    untie(kernel);
    std::optional<AxisReads> reads = rowAxis(kernel, rows);
    Block &body = kernel.getBody().front();
    SmallVector<std::pair<BlockArgument, unsigned>> refs;
    for (auto [i, d] : picked)
      refs.push_back({body.getArgument(i), d});
    ProgramRows analysis(kernel, rows);
    if (!reads || !analysis.analyse(refs, reads->offsets) || !fits(kernel, analysis) ||
        !guardable(*reads, analysis))
      return drop();
    rewrite(kernel, analysis, *reads, launch, axis);
    kernel->moveBefore(original);
    original->erase();
    // The copies made for the analysis that still agree become one again.
    IRRewriter rewriter(kernel.getContext());
    DominanceInfo dominance(kernel);
    eliminateCommonSubExpressions(rewriter, dominance, kernel);
  }

  /// A loop whose bounds come from the program id runs, merged, the trips
  /// of both programs; each trip only one of them ran keeps the other's
  /// carried values (a select on the rows). So each carried value holds
  /// the rows in one dim, and the loop writes nothing.
  static bool guardable(const AxisReads &reads, const ProgramRows &analysis) {
    for (scf::ForOp loop : reads.boundedLoops) {
      for (Value v : loop.getResults())
        if (llvm::popcount(analysis.dimsOf(v)) != 1)
          return false;
      WalkResult writes = loop.getBody()->walk([](StoreOp) { return WalkResult::interrupt(); });
      if (writes.wasInterrupted())
        return false;
    }
    return true;
  }

  /// Every tensor of twice the rows holds at most 128 elements a thread.
  bool fits(KernelOp kernel, const ProgramRows &analysis) {
    int64_t limit = 128 * 32 * warps;
    for (auto [v, m] : analysis.all())
      if (auto t = dyn_cast<RankedTensorType>(v.getType()))
        if (t.getNumElements() << llvm::popcount(m) > limit)
          return false;
    return true;
  }

  /// A loop's bounds for each program of the pair, computed before it.
  struct PairBounds {
    Value lower[2], upper[2];
  };

  /// The bounds of `loop` in program 2p + r: its bound expressions copied
  /// with the program id replaced.
  static PairBounds boundsPerProgram(scf::ForOp loop, const AxisReads &reads) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    PairBounds bounds;
    Value pid = ProgramIdOp::create(b, loc, b.getI32Type(), reads.axis);
    Value two = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(2));
    Value first = arith::MulIOp::create(b, loc, pid, two);
    for (int r = 0; r < 2; ++r) {
      Value program = r ? arith::AddIOp::create(
                              b, loc, first, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1)))
                        : first;
      IRMapping map;
      for (ProgramIdOp p : reads.pids)
        map.map(p.getResult(), program);
      std::function<Value(Value)> remap = [&](Value v) -> Value {
        if (Value m = map.lookupOrNull(v))
          return m;
        Operation *def = v.getDefiningOp();
        if (!def || !reads.derived.contains(def))
          return v;
        for (Value x : def->getOperands())
          remap(x);
        return b.clone(*def, map)->getResult(0);
      };
      bounds.lower[r] = remap(loop.getLowerBound());
      bounds.upper[r] = remap(loop.getUpperBound());
    }
    return bounds;
  }

  /// A mask of `type`'s shape: along `dim`, the first half of the rows
  /// (program 2p's) `runs[0]`, the second half `runs[1]`.
  static Value programRows(OpBuilder &g, Location loc, RankedTensorType type, unsigned dim,
                           Value runs[2]) {
    int64_t n = type.getDimSize(dim);
    auto rowsType = RankedTensorType::get({n}, g.getI32Type());
    auto flagType = RankedTensorType::get({n}, g.getI1Type());
    Value iota = IotaOp::create(g, loc, rowsType, 0);
    Value half = arith::ConstantOp::create(
        g, loc, DenseElementsAttr::get(rowsType, g.getI32IntegerAttr(n / 2).getValue()));
    Value firstProgram = arith::CmpIOp::create(g, loc, arith::CmpIPredicate::slt, iota, half);
    Value row = arith::SelectOp::create(g, loc, firstProgram,
                                        BroadcastOp::create(g, loc, flagType, runs[0], nullptr),
                                        BroadcastOp::create(g, loc, flagType, runs[1], nullptr));
    return BroadcastOp::create(g, loc, RankedTensorType::get(type.getShape(), g.getI1Type()), row,
                               g.getDenseI64ArrayAttr({static_cast<int64_t>(dim)}));
  }

  /// Splits `loop` (retyped, its bounds per program in `bounds`) into
  /// three running its trips in order: a prefix and a suffix where one
  /// program of the pair may have no trip (guarded: each program's rows
  /// keep their carried values there), and between them, from an even
  /// trip to an even trip, the trips both programs run, unguarded (which
  /// pallas-merge-iterations may then merge pairwise).
  static void splitBoundedLoop(scf::ForOp loop, const PairBounds &bounds,
                               const ProgramRows &analysis) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    bool lowerVaries = bounds.lower[0] != bounds.lower[1];
    bool upperVaries = bounds.upper[0] != bounds.upper[1];
    auto c = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(loop.getLowerBound().getType(), v));
    };
    Value lowerMin = bounds.lower[0], lowerMax = bounds.lower[0];
    Value upperMin = bounds.upper[0], upperMax = bounds.upper[0];
    if (lowerVaries) {
      lowerMin = arith::MinSIOp::create(b, loc, bounds.lower[0], bounds.lower[1]);
      lowerMax = arith::MaxSIOp::create(b, loc, bounds.lower[0], bounds.lower[1]);
    }
    if (upperVaries) {
      upperMin = arith::MinSIOp::create(b, loc, bounds.upper[0], bounds.upper[1]);
      upperMax = arith::MaxSIOp::create(b, loc, bounds.upper[0], bounds.upper[1]);
    }
    Value mainLower = lowerVaries ? arith::MulIOp::create(
                                        b, loc, arith::CeilDivSIOp::create(b, loc, lowerMax, c(2)), c(2))
                                  : lowerMin;
    Value mainUpper = upperVaries
                          ? arith::MaxSIOp::create(
                                b, loc, mainLower,
                                arith::MulIOp::create(
                                    b, loc, arith::FloorDivSIOp::create(b, loc, upperMin, c(2)), c(2)))
                          : upperMin;
    Value prefixEnd = lowerVaries ? arith::MinSIOp::create(b, loc, mainLower, upperMax) : Value();
    Value suffixStart =
        upperVaries ? (lowerVaries ? arith::MaxSIOp::create(b, loc, prefixEnd, mainUpper).getResult()
                                   : mainUpper)
                    : Value();

    // A copy of the loop over [from, to) whose trips keep, in the rows of
    // a program that has no such trip, what the rows carried.
    auto guarded = [&](Value from, Value to, ValueRange inits) {
      auto copy = cast<scf::ForOp>(b.clone(*loop));
      copy.getLowerBoundMutable().assign(from);
      copy.getUpperBoundMutable().assign(to);
      copy.getInitArgsMutable().assign(inits);
      auto yield = cast<scf::YieldOp>(copy.getBody()->getTerminator());
      // (The masks first: the sums' selects go before their adds.)
      OpBuilder g = OpBuilder::atBlockBegin(copy.getBody());
      Value iv = copy.getInductionVar();
      Value runs[2];
      for (int r = 0; r < 2; ++r)
        runs[r] = arith::AndIOp::create(
            g, loc, arith::CmpIOp::create(g, loc, arith::CmpIPredicate::sle, bounds.lower[r], iv),
            arith::CmpIOp::create(g, loc, arith::CmpIPredicate::slt, iv, bounds.upper[r]));
      for (unsigned j = 0; j < copy.getNumResults(); ++j) {
        auto type = cast<RankedTensorType>(copy.getResult(j).getType());
        unsigned dim = llvm::countr_zero(analysis.dimsOf(loop.getResult(j)));
        Value keep = programRows(g, loc, type, dim, runs);
        // A sum (carried + increment) keeps its value by adding zero
        // instead: the old value need not live beside the new one (a dot
        // accumulating in place).
        Value carried = copy.getRegionIterArgs()[j], next = yield.getOperand(j);
        auto add = next.getDefiningOp<arith::AddFOp>();
        if (add && (add.getLhs() == carried || add.getRhs() == carried)) {
          Value increment = add.getLhs() == carried ? add.getRhs() : add.getLhs();
          OpBuilder a(add);
          Value zero = arith::ConstantOp::create(
              a, loc, DenseElementsAttr::get(type, a.getZeroAttr(type.getElementType())));
          Value kept = arith::SelectOp::create(a, loc, keep, increment, zero);
          add->setOperand(add.getLhs() == carried ? 1 : 0, kept);
          continue;
        }
        OpBuilder y(yield);
        yield->setOperand(j, arith::SelectOp::create(y, loc, keep, next, carried));
      }
      return copy;
    };
    SmallVector<Value> inits(loop.getInitArgs());
    // Only the lower bound varies and the carried values start as
    // constants (JAX's dK/dV scan from the diagonal): the trips before the
    // later lower bound run unguarded, only the program with the earlier
    // one has them; the other's rows then get their constant back. So no
    // trip holds a second copy of the carried values.
    bool constantInits = llvm::all_of(loop.getInitArgs(), [](Value v) {
      DenseElementsAttr splat;
      return matchPattern(v, m_Constant(&splat)) && splat.isSplat();
    });
    if (lowerVaries && !upperVaries && constantInits) {
      auto plain = [&](Value from, Value to, ValueRange starts) {
        auto copy = cast<scf::ForOp>(b.clone(*loop));
        copy.getLowerBoundMutable().assign(from);
        copy.getUpperBoundMutable().assign(to);
        copy.getInitArgsMutable().assign(starts);
        return copy;
      };
      Value end = arith::MinSIOp::create(b, loc, lowerMax, upperMin);
      scf::ForOp first = plain(lowerMin, end, inits);
      b.setInsertionPointAfter(first);
      Value runs[2];
      for (int r = 0; r < 2; ++r)
        runs[r] = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bounds.lower[r], lowerMin);
      SmallVector<Value> kept;
      for (unsigned j = 0; j < first.getNumResults(); ++j) {
        auto type = cast<RankedTensorType>(first.getResult(j).getType());
        unsigned dim = llvm::countr_zero(analysis.dimsOf(loop.getResult(j)));
        kept.push_back(arith::SelectOp::create(b, loc, programRows(b, loc, type, dim, runs),
                                               first.getResult(j), inits[j]));
      }
      // Both run the trips from the later lower bound; those before an
      // even trip (or the upper bound) on their own, the rest as written.
      Value evenStart = arith::MinSIOp::create(
          b, loc, arith::MulIOp::create(b, loc, arith::CeilDivSIOp::create(b, loc, lowerMax, c(2)), c(2)),
          upperMin);
      scf::ForOp odd = plain(lowerMax, evenStart, kept);
      loop.getInitArgsMutable().assign(odd.getResults());
      loop.getLowerBoundMutable().assign(evenStart);
      return;
    }
    if (lowerVaries) {
      scf::ForOp prefix = guarded(lowerMin, prefixEnd, inits);
      loop.getInitArgsMutable().assign(prefix.getResults());
    }
    loop.getLowerBoundMutable().assign(mainLower);
    loop.getUpperBoundMutable().assign(mainUpper);
    if (upperVaries) {
      b.setInsertionPointAfter(loop);
      SmallVector<Value> results(loop.getResults());
      scf::ForOp suffix = guarded(suffixStart, upperMax, results);
      for (auto [from, to] : llvm::zip(results, suffix.getResults()))
        from.replaceAllUsesExcept(to, suffix);
    }
  }

  void rewrite(KernelOp kernel, const ProgramRows &analysis, const AxisReads &reads,
               LaunchAttr launch, unsigned axis) {
    MLIRContext *ctx = kernel.getContext();
    ArrayRef<arith::MulIOp> offsets = reads.offsets;
    // Bounds per program first, while the offsets still count one program.
    SmallVector<std::pair<scf::ForOp, PairBounds>> bounded;
    for (scf::ForOp loop : reads.boundedLoops)
      bounded.push_back({loop, boundsPerProgram(loop, reads)});
    auto grow = [&](Value v) {
      DimMask m = analysis.dimsOf(v);
      if (!m)
        return false;
      SmallVector<int64_t> shape(shapeOf(v.getType()));
      for (unsigned d = 0; d < shape.size(); ++d)
        if (bit(m, d))
          shape[d] *= 2;
      setShape(v, shape);
      return true;
    };
    // Blocks the axis picks double along it; index maps stay.
    Block &entry = kernel.getBody().front();
    for (BlockArgument arg : entry.getArguments()) {
      DimMask m = analysis.dimsOf(arg);
      if (!m)
        continue;
      BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
      SmallVector<int64_t> blockDims(spec.getBlock());
      unsigned refDim = 0;
      for (unsigned k = 0; k < blockDims.size(); ++k)
        if (!spec.isSqueezed(k) && bit(m, refDim++))
          blockDims[k] *= 2;
      grow(arg);
      setBlockSpec(kernel, arg.getArgNumber(),
                   BlockSpecAttr::get(ctx, spec.getRole(), spec.getName(), spec.getShape(),
                                      blockDims, spec.getSqueezed(), spec.getIndexMap(),
                                      spec.getIndexFn(), spec.getSizeNames()));
    }
    kernel.setFunctionTypeAttr(
        TypeAttr::get(FunctionType::get(ctx, entry.getArgumentTypes(), {})));
    retypeTensors(kernel, grow);
    // Slices of the rows: twice as long, from p * 2R.
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
        if (mul && llvm::is_contained(offsets, mul)) {
          i.size *= 2;
          changed = true;
        }
        out.push(i);
      }
      if (changed)
        set(out.encode());
    };
    kernel.getBody().walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op))
        widen(load.getRef(), load.getIndexers(), load.getIndices(),
              [&](ArrayRef<int64_t> e) { load.setIndexers(e); });
      else if (auto store = dyn_cast<StoreOp>(op))
        widen(store.getRef(), store.getIndexers(), store.getIndices(),
              [&](ArrayRef<int64_t> e) { store.setIndexers(e); });
    });
    for (arith::MulIOp mul : offsets) {
      OpBuilder b(mul);
      Value twice =
          arith::ConstantOp::create(b, mul.getLoc(), b.getIntegerAttr(mul.getType(), 2 * rows));
      bool pidLeft = mul.getLhs().getDefiningOp<ProgramIdOp>() != nullptr;
      mul->setOperand(pidLeft ? 1 : 0, twice);
    }
    for (auto &[loop, bounds] : bounded)
      splitBoundedLoop(loop, bounds, analysis);
    // The bounds as written (of one program) are left unused.
    for (Operation *op : llvm::reverse(reads.derived))
      if (op->use_empty())
        op->erase();
    SmallVector<int64_t> newGrid(launch.getGrid());
    newGrid[axis] /= 2;
    setLaunch(kernel, launch.withGrid(newGrid, launch.getDimensionSemantics()));
  }
};
} // namespace
