//===- AssignLayouts.cpp - pick register layouts for tile IR on CUDA ------===//
//
// Every tensor is in the blocked layout unless this pass says otherwise.
// Dots that tensor cores can run get their result, and their accumulator,
// in the mma layout (the `pallas.mma` encoding). When the accumulator is
// carried by an scf.for whose body yields the dot's result, the loop
// carries the mma layout too, so the accumulator never leaves the
// registers inside the loop. Layout changes are `tensor.cast`s between the
// encodings, which convert-tile-to-nvvm turns into shared-memory
// exchanges.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Layouts.h"
#include "pallas/Passes/ExpandF8Conversions.h"

#include "pallas/Cuda/CudaPasses.h"

#include "pallas/Gpu/Gpu.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASASSIGNLAYOUTS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

namespace {

/// The most accumulator registers per thread a whole-rows mma layout may
/// take (a 16 x 128 f32 tile per warp: attention keeps two such, the
/// scores and the output, with its operands).
constexpr int64_t kWholeRowsMaxRegisters = 64;

bool tensorCoresCanRun(tt::DotOp dot, int64_t threads) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto b = cast<RankedTensorType>(dot.getB().getType());
  auto d = cast<RankedTensorType>(dot.getType());
  if (a.getRank() != 2 || !d.getElementType().isF32())
    return false;
  Type e = a.getElementType();
  if (e != b.getElementType())
    return false;
  int64_t kStep;
  if (e.isBF16() || e.isF16())
    kStep = 16;
  else if (isF8(e))
    kStep = 32;
  else if (e.isF32() && dot.getInputPrecision() == tt::InputPrecision::TF32)
    kStep = 8;
  else
    return false;
  return a.getDimSize(1) % kStep == 0 &&
         MmaLayout::forShape(d.getDimSize(0), d.getDimSize(1), threads).has_value();
}

/// For a dot tensor cores can run: whether Hopper's warpgroup MMA can
/// (bf16/f16/f8 operands, one m64 tile per warpgroup).
bool wgmmaCanRun(tt::DotOp dot, int64_t threads, int64_t maxTilesM = 1) {
  auto d = cast<RankedTensorType>(dot.getType());
  Type e = cast<RankedTensorType>(dot.getA().getType()).getElementType();
  return (e.isBF16() || e.isF16() || isF8(e)) &&
         wgmmaLayout(d.getDimSize(0), d.getDimSize(1), threads, maxTilesM).has_value();
}

/// For a dot tensor cores can run on more warpgroups than it has m64
/// blocks (a 64-row tile on two warpgroups): how many ways the warpgroups
/// split its columns on wgmma (bf16/f16 operands): each a multiple of 64
/// (whole 128-byte atom columns of an MN-major B) or 32 (half of one, where
/// a descriptor can start too); 0 where they cannot.
int64_t wgmmaColumnGroups(tt::DotOp dot, int64_t threads) {
  auto d = cast<RankedTensorType>(dot.getType());
  Type e = cast<RankedTensorType>(dot.getA().getType()).getElementType();
  if (!(e.isBF16() || e.isF16()))
    return 0;
  std::optional<MmaLayout> l =
      wgmmaColumnSplitLayout(d.getDimSize(0), d.getDimSize(1), threads, /*columnQuantum=*/32);
  if (!l)
    return 0;
  int64_t perGroup = d.getDimSize(1) / l->warpsN;
  return perGroup % 64 == 0 || perGroup == 32 ? l->warpsN : 0;
}

/// f8 data is moved (loads, stores) everywhere; sm_90a also converts it
/// (to and from wider floats) and multiplies it with wgmma. The CUDA
/// target has no other f8 path (sm_80 has neither f8 conversions nor f8
/// tensor cores). False after a located error.
bool checkF8(Operation *root, bool wgmma) {
  WalkResult r = root->walk([&](Operation *op) {
    if (auto dot = dyn_cast<tt::DotOp>(op)) {
      if (!isF8(dot.getA().getType()) && !isF8(dot.getB().getType()))
        return WalkResult::advance();
      LaunchAttr launch = launchOf(dot);
      int64_t threads = launch ? 32 * launch.getNumWarps() : 0;
      if (!wgmma) {
        dot.emitError("this pallas.dot multiplies f8 operands, which the cuda target runs on "
                      "sm_90a's wgmma only (sm_80's tensor cores take no f8)");
        return WalkResult::interrupt();
      }
      if (!tensorCoresCanRun(dot, threads) || !wgmmaCanRun(dot, threads)) {
        dot.emitError("this pallas.dot multiplies f8 operands in a shape wgmma cannot run: "
                      "both operands of one f8 type, an f32 result of 64 rows per warpgroup, "
                      "and a contracting dim that is a multiple of 32");
        return WalkResult::interrupt();
      }
      auto trans = dot.getB().getDefiningOp<tt::TransOp>();
      if (!trans || cast<RankedTensorType>(trans.getSrc().getType()).getRank() != 2) {
        dot.emitError("this pallas.dot multiplies f8 operands with B [K, N] in memory; wgmma "
                      "reads f8 operands K-major only: pass B as [N, K] and use transpose_rhs");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op))
      return WalkResult::advance();
    // sm_90a converts f8 to and from f32, f16 and bf16 (cvt, sm_89 on).
    if (wgmma && isa<arith::TruncFOp, arith::ExtFOp>(op))
      return WalkResult::advance();
    for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
      if (isF8(t)) {
        op->emitOpError("computes on ")
            << getElementTypeOrSelf(t)
            << (wgmma ? ", which the cuda target only loads, stores, converts (arith.truncf, "
                        "arith.extf) and multiplies in dots"
                      : ", which sm_80 only loads and stores (f8 conversions and dots "
                        "need sm_90a)");
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return !r.wasInterrupted();
}

/// Whether a row reduction reads a dot's result through elementwise ops
/// (and scf.if results):
/// the softmax between attention's two dots. mma.sync dots then give each
/// warp whole rows (MmaLayout::wholeRows), as wgmma does, so that the
/// reductions, the broadcasts back and the second dot's A stay in the
/// registers instead of crossing warps through shared memory.
bool rowReducedAfterDot(Operation *root) {
  SmallVector<Value> worklist;
  DenseSet<Value> seen;
  auto push = [&](Value v) {
    if (seen.insert(v).second)
      worklist.push_back(v);
  };
  root->walk([&](tt::DotOp d) { push(d.getResult()); });
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto reduce = dyn_cast<tt::ReduceOp>(user))
        if (reduce.getAxis() == 1 && cast<RankedTensorType>(v.getType()).getRank() == 2)
          return true;
      // A causal kernel's masking may sit in one branch of an scf.if
      // (pallas-uniform-masks): on to the if's result.
      if (isa<scf::YieldOp>(user))
        if (auto ifOp = dyn_cast<scf::IfOp>(user->getParentOp()))
          push(ifOp.getResult(use.getOperandNumber()));
      if (isa<arith::ArithDialect, math::MathDialect>(user->getDialect()) &&
          user->getNumResults() == 1 && isa<RankedTensorType>(user->getResult(0).getType()))
        push(user->getResult(0));
    }
  }
  return false;
}

/// Uses of `v` other than `except` now see `v` cast back to `plain`.
void castBackUses(OpBuilder &b, Value v, RankedTensorType plain, Operation *except) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : v.getUses())
    if (use.getOwner() != except)
      uses.push_back(&use);
  if (uses.empty())
    return;
  auto cast = tensor::CastOp::create(b, v.getLoc(), plain, v);
  for (OpOperand *use : uses)
    use->set(cast);
}

struct AssignLayoutsPass : pallas::impl::PallasAssignLayoutsBase<AssignLayoutsPass> {
  using PallasAssignLayoutsBase::PallasAssignLayoutsBase;

  void runOnOperation() override {
    if (!checkF8(getOperation(), wgmma))
      return signalPassFailure();
    SmallVector<tt::DotOp> dots;
    getOperation().walk([&](tt::DotOp d) { dots.push_back(d); });
    bool wholeRows = !wgmma && rowReducedAfterDot(getOperation());
    for (tt::DotOp dot : dots) {
      LaunchAttr launch = launchOf(dot);
      if (!launch) {
        dot.emitOpError("is in a function without a pallas.launch (its num_warps)");
        return signalPassFailure();
      }
      int64_t threads = 32 * launch.getNumWarps();
      if (!tensorCoresCanRun(dot, threads))
        continue;
      auto plain = cast<RankedTensorType>(dot.getType());
      bool warpgroup = wgmma && wgmmaCanRun(dot, threads, wgmmaBlocks);
      int64_t columnGroups = 1;
      if (wgmma && !warpgroup)
        if (int64_t g = wgmmaColumnGroups(dot, threads)) {
          warpgroup = true;
          columnGroups = g;
        }
      std::optional<MmaLayout> layout;
      if (wholeRows)
        layout = MmaLayout::wholeRows(plain.getDimSize(0), plain.getDimSize(1), threads);
      if (!layout || layout->perThread() > kWholeRowsMaxRegisters)
        layout = MmaLayout::forShape(plain.getDimSize(0), plain.getDimSize(1), threads);
      Attribute encoding = warpgroup ? wgmmaEncoding(&getContext(), threads / 32, columnGroups)
                                     : mmaEncoding(&getContext(), *layout);
      auto mma = RankedTensorType::get(plain.getShape(), plain.getElementType(), encoding);
      OpBuilder b(dot);
      Value acc = dot.getC();
      auto loop = dyn_cast_or_null<scf::ForOp>(
          isa<BlockArgument>(acc) ? acc.getParentBlock()->getParentOp() : nullptr);
      std::optional<unsigned> carried;
      if (loop && cast<BlockArgument>(acc).getArgNumber() > 0) {
        unsigned i = cast<BlockArgument>(acc).getArgNumber() - 1;
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        if (yield.getOperand(i) == dot.getResult() &&
            dot->getParentOp() == loop.getOperation() &&
            llvm::all_of(acc.getUsers(), [&](Operation *u) { return u == dot; }))
          carried = i;
      }
      dot.getResult().setType(mma);
      if (carried) {
        // The loop carries the accumulator in the mma layout.
        unsigned i = *carried;
        b.setInsertionPoint(loop);
        Value init = loop.getInitArgs()[i];
        loop.getInitArgsMutable()[i].set(tensor::CastOp::create(b, loop.getLoc(), mma, init));
        loop.getRegionIterArgs()[i].setType(mma);
        Value result = loop.getResult(i);
        result.setType(mma);
        b.setInsertionPointAfter(loop);
        castBackUses(b, result, plain, nullptr);
        b.setInsertionPointAfter(dot);
        castBackUses(b, dot.getResult(), plain, loop.getBody()->getTerminator());
        continue;
      }
      b.setInsertionPoint(dot);
      dot.getCMutable().set(tensor::CastOp::create(b, dot.getLoc(), mma, acc));
      b.setInsertionPointAfter(dot);
      castBackUses(b, dot.getResult(), plain, nullptr);
    }
    propagate();
    computeInLayout();
    broadcastIntoLayout();
    readConvertedAInLayout();
    narrowBeforeLeaving();
    if (wgmma)
      f8InFragmentOrder();
  }

  /// An elementwise op of one result whose tensor operands all have its
  /// shape (a scalar operand is arith.select's one condition for the whole
  /// tensor: every thread has it).
  static bool isElementwise(Operation *op) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() || op->getNumResults() != 1)
      return false;
    auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return result && llvm::all_of(op->getOperandTypes(), [&](Type t) {
             auto o = dyn_cast<RankedTensorType>(t);
             return o ? o.getShape() == result.getShape() : t.isSignlessInteger(1);
           });
  }

  /// A broadcast of a row or a column ([M, 1] or [1, N]) in the blocked
  /// layout: broadcastIntoLayout exchanges only its source.
  static bool isRowOrColumnBroadcast(tt::BroadcastOp bcast) {
    auto src = cast<RankedTensorType>(bcast.getSrc().getType());
    return !src.getEncoding() && src.getRank() == 2 && llvm::is_contained(src.getShape(), 1);
  }

  /// Whether `v` (in the blocked layout) costs nothing to have in a
  /// tensor-core layout, or only the exchange of a row or column: a splat,
  /// a broadcast of a row or column used once, or an elementwise op used
  /// once of such operands.
  static bool cheapInLayout(Value v, int depth = 0) {
    if (depth > 8)
      return false;
    if (matchPattern(v, m_Constant()) || v.getDefiningOp<tt::SplatOp>())
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasOneUse())
      return false;
    if (auto bcast = dyn_cast<tt::BroadcastOp>(def))
      return isRowOrColumnBroadcast(bcast);
    return isElementwise(def) && llvm::all_of(def->getOperands(), [&](Value o) {
             return !isa<RankedTensorType>(o.getType()) || cheapInLayout(o, depth + 1);
           });
  }

  /// A value computed elementwise from splats and row broadcasts only to
  /// enter a tensor-core layout (JAX's attention backward starts dP's
  /// accumulator at `0 - delta` broadcast over the rows) is computed in
  /// that layout: the casts move up to the operands, where a splat costs
  /// nothing and a broadcast exchanges only its row (broadcastIntoLayout),
  /// instead of the whole tile crossing shared memory.
  void computeInLayout() {
    SmallVector<tensor::CastOp> worklist;
    getOperation().walk([&](tensor::CastOp c) {
      if (hasMmaLayout(c.getType()) && !cast<RankedTensorType>(c.getSource().getType()).getEncoding())
        worklist.push_back(c);
    });
    while (!worklist.empty()) {
      tensor::CastOp enter = worklist.pop_back_val();
      Operation *def = enter.getSource().getDefiningOp();
      if (!def || !isElementwise(def) || !cheapInLayout(enter.getSource()))
        continue;
      auto type = cast<RankedTensorType>(enter.getType());
      OpBuilder b(def);
      for (OpOperand &o : def->getOpOperands()) {
        auto t = dyn_cast<RankedTensorType>(o.get().getType());
        if (!t)
          continue;
        auto in = tensor::CastOp::create(b, def->getLoc(),
                                         t.cloneWithEncoding(type.getEncoding()), o.get());
        o.set(in);
        worklist.push_back(in);
      }
      def->getResult(0).setType(type);
      enter.getResult().replaceAllUsesWith(def->getResult(0));
      enter.erase();
    }
  }

  /// A broadcast of a row or column (a bias) cast into a tensor-core
  /// layout broadcasts into it directly: its small source is exchanged,
  /// not the whole tile.
  void broadcastIntoLayout() {
    SmallVector<tensor::CastOp> casts;
    getOperation().walk([&](tensor::CastOp c) {
      auto bcast = c.getSource().getDefiningOp<tt::BroadcastOp>();
      if (bcast && bcast->hasOneUse() && isRowOrColumnBroadcast(bcast) &&
          hasMmaLayout(c.getType()) && !cast<RankedTensorType>(bcast.getType()).getEncoding())
        casts.push_back(c);
    });
    for (tensor::CastOp c : casts) {
      auto bcast = c.getSource().getDefiningOp<tt::BroadcastOp>();
      bcast.getResult().setType(cast<RankedTensorType>(c.getType()));
      c.getResult().replaceAllUsesWith(bcast.getResult());
      c.erase();
    }
  }

  /// A wgmma dot whose A is converted from a tile read out of shared
  /// memory (JAX's int8 x bf16 matmul: sitofp of an int8 tile) reads
  /// the tile straight into the dot's own layout, converts it there and
  /// takes A from the registers (registerA): no exchange through shared
  /// memory, and no scratch area for it.
  void readConvertedAInLayout() {
    getOperation().walk([&](tt::DotOp dot) {
      auto d = cast<RankedTensorType>(dot.getType());
      auto a = cast<RankedTensorType>(dot.getA().getType());
      if (!hasWgmmaLayout(d) || hasColumnSplitWgmmaLayout(d) || a.getEncoding() ||
          !(a.getElementType().isBF16() ||
                                                     a.getElementType().isF16()))
        return;
      // Back through one-operand conversions, each used once, to a read.
      SmallVector<Operation *> chain;
      Value v = dot.getA();
      while (Operation *def = v.getDefiningOp()) {
        if (!v.hasOneUse())
          return;
        if (auto read = dyn_cast<pgpu::RingReadOp>(def)) {
          if (read.getCol() || chain.empty())
            return; // (a dot reads a tile as it is in place)
          chain.push_back(def);
          break;
        }
        if (!isa<arith::SIToFPOp, arith::UIToFPOp, arith::ExtFOp, arith::TruncFOp>(def))
          return;
        chain.push_back(def);
        v = def->getOperand(0);
      }
      if (chain.empty() || !isa<pgpu::RingReadOp>(chain.back()))
        return;
      for (Operation *op : chain) {
        auto t = cast<RankedTensorType>(op->getResult(0).getType());
        op->getResult(0).setType(t.cloneWithEncoding(d.getEncoding()));
      }
      OpBuilder b(dot);
      dot.getAMutable().set(tensor::CastOp::create(b, dot.getLoc(), a, dot.getA()));
    });
  }

  /// The layout `user` takes when `operand` (one of its operands) is in
  /// layout `encoding`, or null when it keeps the blocked layout:
  /// elementwise ops keep the layout, row reductions of a tensor-core
  /// layout end in its row slice, and a row slice expands to [M, 1] and
  /// broadcasts back into its parent.
  static Attribute resultLayout(Operation *user, Value operand, Attribute encoding) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (isElementwise(user))
      return encoding;
    // A wait for an asynchronous dot returns its operand as it is.
    if (isa<pgpu::DotWaitOp>(user) && user->getNumOperands() == 1)
      return encoding;
    // A static slice of whole 16-row tiles of every warp (whole m64 blocks
    // of a wgmma layout) and 8-column tiles: the slots the threads hold.
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
      std::optional<MmaLayout> from = mmaLayoutOf(type.cloneWithEncoding(encoding));
      auto result = cast<RankedTensorType>(slice.getType());
      if (!from || !from->interleaved || from->warpsN != 1 || type.getRank() != 2 ||
          result.getRank() != 2 ||
          !slice.hasUnitStride() || !result.hasStaticShape() ||
          llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
        return {};
      int64_t block = 16 * from->warpsM;
      ArrayRef<int64_t> offsets = slice.getStaticOffsets();
      bool aligned = offsets[0] % block == 0 && result.getDimSize(0) % block == 0 &&
                     offsets[1] % 8 == 0 && result.getDimSize(1) % 8 == 0;
      return aligned ? encoding : Attribute();
    }
    if (auto reduce = dyn_cast<tt::ReduceOp>(user)) {
      // Along the rows (warps splitting the columns too, mma with warpsN >
      // 1, combine through shared memory): into the row slice.
      bool rows = isa<pgpu::WgmmaEncodingAttr, pgpu::MmaEncodingAttr>(encoding) &&
                  reduce.getAxis() == 1 && type.getRank() == 2;
      return rows ? pgpu::SliceEncodingAttr::get(user->getContext(), 1, encoding) : Attribute();
    }
    if (auto expand = dyn_cast<tt::ExpandDimsOp>(user))
      return isa<pgpu::SliceEncodingAttr>(encoding) && type.getRank() == 1 &&
                     expand.getAxis() == 1
                 ? encoding
                 : Attribute();
    if (auto bcast = dyn_cast<tt::BroadcastOp>(user)) {
      auto slice = dyn_cast<pgpu::SliceEncodingAttr>(encoding);
      auto result = cast<RankedTensorType>(bcast.getType());
      if (!slice || type.getRank() != 2 || result.getRank() != 2)
        return {};
      return mmaLayoutOf(result.cloneWithEncoding(slice.getParent())) ? slice.getParent()
                                                                       : Attribute();
    }
    return {};
  }

  /// Carries tensor-core layouts from the dots' results on through the ops
  /// that can compute in them (resultLayout), and through the loops that
  /// carry such values, so that softmax-like code between two dots stays in
  /// the registers. Works on the casts back to the blocked layout: each use
  /// of such a cast whose op can take the layout uses the cast's source
  /// instead, the op's results take the layout (cast back for their other
  /// users) and the op's other operands are cast to it.
  void propagate() {
    SmallVector<tensor::CastOp> worklist;
    getOperation().walk([&](tensor::CastOp c) {
      if (isLeaving(c))
        worklist.push_back(c);
    });
    while (!worklist.empty()) {
      tensor::CastOp leave = worklist.pop_back_val();
      if (!leave->getBlock())
        continue;
      Value source = leave.getSource();
      Attribute encoding = cast<RankedTensorType>(source.getType()).getEncoding();
      for (OpOperand *use : llvm::to_vector(llvm::make_pointer_range(leave->getUses()))) {
        Operation *user = use->getOwner();
        if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp()))
            carry(loop, use->getOperandNumber(), source, worklist);
          if (auto ifOp = dyn_cast<scf::IfOp>(yield->getParentOp()))
            join(ifOp, use->getOperandNumber(), source, worklist);
          continue;
        }
        Attribute layout = resultLayout(user, leave.getResult(), encoding);
        if (!layout || llvm::any_of(user->getResultTypes(), [](Type t) {
              return !isa<RankedTensorType>(t) || cast<RankedTensorType>(t).getEncoding();
            }))
          continue;
        OpBuilder b(user);
        for (OpOperand &o : user->getOpOperands()) {
          auto t = dyn_cast<RankedTensorType>(o.get().getType());
          if (!t)
            continue;
          // Elementwise operands share the result's layout; the source of a
          // reduction, expand_dims or broadcast keeps the one it comes in.
          Attribute want =
              isa<tt::ReduceOp, tt::ExpandDimsOp, tt::BroadcastOp>(user) ? encoding : layout;
          o.set(inLayout(b, o.get(), t.cloneWithEncoding(want)));
        }
        for (Value r : user->getResults()) {
          auto plain = cast<RankedTensorType>(r.getType());
          r.setType(plain.cloneWithEncoding(layout));
          b.setInsertionPointAfter(user);
          if (tensor::CastOp back = castBack(b, r, plain))
            worklist.push_back(back);
        }
      }
      if (leave->use_empty())
        leave.erase();
    }
  }

  /// A cast from a tensor-core or slice layout to the blocked one.
  static bool isLeaving(tensor::CastOp c) {
    Type from = c.getSource().getType();
    return (hasMmaLayout(from) || hasSliceLayout(from)) &&
           !cast<RankedTensorType>(c.getType()).getEncoding();
  }

  /// `v` as a value of `type` (same shape): the source of a cast that left
  /// that layout, or a new cast.
  static Value inLayout(OpBuilder &b, Value v, RankedTensorType type) {
    if (v.getType() == type)
      return v;
    if (auto c = v.getDefiningOp<tensor::CastOp>(); c && c.getSource().getType() == type)
      return c.getSource();
    return tensor::CastOp::create(b, v.getLoc(), type, v);
  }

  /// The uses of `v` (now in a layout) see it cast back to `plain`; uses
  /// that cast it to its own layout again see `v` itself.
  static tensor::CastOp castBack(OpBuilder &b, Value v, RankedTensorType plain) {
    tensor::CastOp back;
    SmallVector<tensor::CastOp> again;
    for (OpOperand *use : llvm::to_vector(llvm::make_pointer_range(v.getUses()))) {
      if (auto c = dyn_cast<tensor::CastOp>(use->getOwner()); c && c.getType() == v.getType()) {
        again.push_back(c);
        continue;
      }
      if (!back)
        back = tensor::CastOp::create(b, v.getLoc(), plain, v);
      use->set(back);
    }
    // Erased only now: `b` may insert right before one of them.
    for (tensor::CastOp c : again) {
      c.getResult().replaceAllUsesWith(v);
      c.erase();
    }
    return back;
  }

  /// Loop-carried value `i` of `loop` is yielded as `v` (in a layout): the
  /// loop carries it in that layout, its initial value cast into it.
  void carry(scf::ForOp loop, unsigned i, Value v, SmallVectorImpl<tensor::CastOp> &worklist) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    BlockArgument arg = loop.getRegionIterArgs()[i];
    auto type = cast<RankedTensorType>(v.getType());
    auto plain = dyn_cast<RankedTensorType>(arg.getType());
    if (!plain || plain.getEncoding())
      return; // already carried in some layout; the yield keeps its cast
    yield->setOperand(i, v);
    OpBuilder b(loop);
    OpOperand &init = loop.getInitArgsMutable()[i];
    init.set(inLayout(b, init.get(), type));
    arg.setType(type);
    b.setInsertionPointToStart(loop.getBody());
    if (tensor::CastOp back = castBack(b, arg, plain))
      worklist.push_back(back);
    Value result = loop.getResult(i);
    result.setType(type);
    b.setInsertionPointAfter(loop);
    if (tensor::CastOp back = castBack(b, result, plain))
      worklist.push_back(back);
  }

  /// Result `i` of `ifOp` is yielded as `v` (in a layout) by one branch:
  /// the if returns it in that layout, the other branch's value cast into
  /// it.
  void join(scf::IfOp ifOp, unsigned i, Value v, SmallVectorImpl<tensor::CastOp> &worklist) {
    auto type = cast<RankedTensorType>(v.getType());
    Value result = ifOp.getResult(i);
    auto plain = dyn_cast<RankedTensorType>(result.getType());
    if (!plain || plain.getEncoding())
      return; // already returned in some layout; the yield keeps its cast
    for (Block *branch : {ifOp.thenBlock(), ifOp.elseBlock()}) {
      auto yield = cast<scf::YieldOp>(branch->getTerminator());
      OpBuilder b(yield);
      yield->setOperand(i, inLayout(b, yield.getOperand(i), type));
    }
    result.setType(type);
    OpBuilder b(ifOp->getContext());
    b.setInsertionPointAfter(ifOp);
    if (tensor::CastOp back = castBack(b, result, plain))
      worklist.push_back(back);
  }

  /// An f8 value computed in the wgmma accumulator layout (arith.truncf)
  /// whose only readers are wgmma dots taking it as their A from registers
  /// (fp8 attention's P, maybe carried to the next iteration by
  /// pallas-defer-last-dot) changes to #pallas_gpu.wgmma_f8_a where it is
  /// computed: its quad shuffles then run beside the work that follows
  /// (the softmax) instead of in front of the dots. Its web: the
  /// truncations, and the loop results, iteration arguments, initial values
  /// and yielded values that carry them; every use a yield, a loop's
  /// initial value, or a cast out of the layout that only such dots read.
  void f8InFragmentOrder() {
    SmallVector<tt::DotOp> dots;
    getOperation().walk([&](tt::DotOp d) { dots.push_back(d); });
    DenseSet<Value> seen;
    for (tt::DotOp dot : dots) {
      auto leave = dot.getA().getDefiningOp<tensor::CastOp>();
      auto d = cast<RankedTensorType>(dot.getType());
      auto src = leave ? dyn_cast<RankedTensorType>(leave.getSource().getType())
                       : RankedTensorType();
      if (!src || !hasWgmmaLayout(d) || hasColumnSplitWgmmaLayout(d) ||
          !isF8(src.getElementType()) ||
          src.getEncoding() != d.getEncoding() || seen.contains(leave.getSource()))
        continue;
      auto readsAsA = [&](Operation *user, Value v) {
        auto reader = dyn_cast<tt::DotOp>(user);
        return reader && reader.getA() == v && reader.getB() != v &&
               reader.getType().getEncoding() == d.getEncoding();
      };
      llvm::SetVector<Value> web;
      SmallVector<Value> work;
      auto add = [&](Value v) {
        if (web.insert(v))
          work.push_back(v);
      };
      // Loop-carried value i of `loop`: all four faces of it.
      auto carried = [&](scf::ForOp loop, unsigned i) {
        add(loop.getInitArgs()[i]);
        add(loop.getRegionIterArg(i));
        add(loop.getResult(i));
        add(loop.getBody()->getTerminator()->getOperand(i));
      };
      add(leave.getSource());
      bool ok = true;
      while (ok && !work.empty()) {
        Value v = work.pop_back_val();
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
          ok = loop && arg.getArgNumber() > 0;
          if (ok)
            carried(loop, arg.getArgNumber() - 1);
        } else if (auto loop = v.getDefiningOp<scf::ForOp>()) {
          carried(loop, cast<OpResult>(v).getResultNumber());
        } else {
          ok = v.getDefiningOp<arith::TruncFOp>() && v.getType() == src;
        }
        for (OpOperand &use : v.getUses()) {
          if (!ok)
            break;
          Operation *user = use.getOwner();
          if (auto c = dyn_cast<tensor::CastOp>(user)) {
            ok = !cast<RankedTensorType>(c.getType()).getEncoding() &&
                 llvm::all_of(c->getUsers(),
                              [&](Operation *u) { return readsAsA(u, c.getResult()); });
          } else if (isa<scf::YieldOp>(user)) {
            auto loop = dyn_cast<scf::ForOp>(user->getParentOp());
            ok = loop != nullptr;
            if (ok)
              carried(loop, use.getOperandNumber());
          } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
            ok = use.getOperandNumber() >= loop.getNumControlOperands();
            if (ok)
              carried(loop, use.getOperandNumber() - loop.getNumControlOperands());
          } else {
            ok = false;
          }
        }
      }
      seen.insert(web.begin(), web.end());
      if (!ok)
        continue;
      auto inOrder = src.cloneWithEncoding(pgpu::WgmmaF8AEncodingAttr::get(
          &getContext(), cast<pgpu::WgmmaEncodingAttr>(d.getEncoding()).getWarps()));
      for (Value v : web) {
        if (auto trunc = v.getDefiningOp<arith::TruncFOp>()) {
          OpBuilder b(trunc->getContext());
          b.setInsertionPointAfter(trunc);
          auto toOrder = tensor::CastOp::create(b, trunc.getLoc(), inOrder, trunc.getResult());
          trunc.getResult().replaceAllUsesExcept(toOrder.getResult(), toOrder);
        } else {
          v.setType(inOrder);
        }
      }
    }
  }

  /// A value leaving a tensor-core layout only to be narrowed (f32 results
  /// stored as bf16) is narrowed first: the exchange between layouts then
  /// moves half the bytes.
  void narrowBeforeLeaving() {
    SmallVector<tensor::CastOp> casts;
    getOperation().walk([&](tensor::CastOp c) {
      if (hasMmaLayout(c.getSource().getType()) && !hasMmaLayout(c.getType()) &&
          c->hasOneUse() && isa<arith::TruncFOp>(*c->getUsers().begin()))
        casts.push_back(c);
    });
    for (tensor::CastOp c : casts) {
      auto trunc = cast<arith::TruncFOp>(*c->getUsers().begin());
      auto source = cast<RankedTensorType>(c.getSource().getType());
      auto narrow = cast<RankedTensorType>(trunc.getType());
      OpBuilder b(trunc);
      Value inLayout = arith::TruncFOp::create(
          b, trunc.getLoc(), narrow.cloneWithEncoding(source.getEncoding()), c.getSource());
      trunc.replaceAllUsesWith(
          tensor::CastOp::create(b, trunc.getLoc(), narrow, inLayout).getResult());
      trunc.erase();
      c.erase();
    }
  }
};

} // namespace
