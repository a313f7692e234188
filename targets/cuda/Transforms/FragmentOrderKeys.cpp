//===- FragmentOrderKeys.cpp - load K so P lands in f8 fragment order ---===//
//
// fp8 attention rounds its probabilities P (wgmma's accumulator layout: each
// thread of a quad holds two adjacent columns of every 8) to f8 for P V,
// whose A fragment wants four adjacent columns per thread: two quad
// shuffles per 16 columns and register (#pallas_gpu.wgmma_f8_a's cast).
// The columns of S = Q K^T are K's rows. Where nothing between S and P
// depends on which column is which (elementwise work with row-uniform
// operands, row reductions), K's blocks may be loaded with their rows
// permuted within each 16 (box row 8h + 2b + j holding row 4b + 2h + j): a
// thread's two pairs of each 16 columns are then the keys 4q .. 4q + 3 it
// passes to P V, and the cast only joins bytes of its own registers.
//
// Runs last before convert-tile-to-nvvm, where the rings and the TMA copies
// filling them are known: a ring qualifies when the TMA fills it (maps of
// static size whose boxes start at rows the analysis proves multiples of 16)
// and every read of it is K^T of such a scores dot.
//
//===----------------------------------------------------------------------===//
#include "Analysis/AxisInfo.h"
#include "Dialect/Layouts.h"
#include "Transforms/StageLoads.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"
#include "pallas/Passes/ExpandF8Conversions.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASFRAGMENTORDERKEYS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using cuda::hasWgmmaF8ALayout;
using cuda::hasWgmmaLayout;

namespace {

/// Whether `v` holds the same value across each row (a splat, or a row
/// vector broadcast along the columns): permuting columns leaves it as is.
bool rowUniform(Value v) {
  if (auto c = v.getDefiningOp<tensor::CastOp>())
    return rowUniform(c.getSource());
  if (v.getDefiningOp<tt::SplatOp>())
    return true;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    return isa<SplatElementsAttr>(c.getValue());
  if (auto b = v.getDefiningOp<tt::BroadcastOp>()) {
    auto src = cast<RankedTensorType>(b.getSrc().getType());
    return src.getRank() == 2 && src.getDimSize(1) == 1;
  }
  return false;
}

/// A row reduction whose result does not depend on the columns' order.
bool orderFreeRowReduce(tt::ReduceOp r) {
  if (r.getAxis() != 1 || r.getNumOperands() != 1)
    return false;
  Block &body = r.getCombineOp().front();
  if (body.getOperations().size() != 2)
    return false;
  return isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp>(body.front());
}

/// The ring a dot's B comes from as K^T (tt.trans of a whole-tile read).
Value kRing(tt::DotOp dot) {
  auto trans = dot.getB().getDefiningOp<tt::TransOp>();
  if (!trans || !trans->hasOneUse() || trans.getOrder() != ArrayRef<int32_t>{1, 0})
    return {};
  auto read = trans.getSrc().getDefiningOp<pgpu::RingReadOp>();
  if (!read || read.getCol() || !read->hasOneUse())
    return {};
  return read.getRing();
}

/// What the scores of `dot` reach: the casts into f8 fragment order that
/// would join registers only, when every value computed from the scores
/// (and the scores themselves) is read only by elementwise ops with
/// row-uniform other operands, order-free row reductions, the dot waits
/// and branch yields that pass them on, and truncations to f8 whose only
/// reader is such a cast. None where anything else reads them.
std::optional<SmallVector<tensor::CastOp>> fragmentCasts(tt::DotOp dot) {
  SmallVector<tensor::CastOp> casts;
  DenseSet<Value> region;
  SmallVector<Value> work;
  auto add = [&](Value v) {
    if (region.insert(v).second)
      work.push_back(v);
  };
  add(dot.getResult());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto wait = dyn_cast<pgpu::DotWaitOp>(user)) {
        add(wait.getResult(use.getOperandNumber()));
      } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        auto branch = dyn_cast<scf::IfOp>(yield->getParentOp());
        if (!branch)
          return std::nullopt;
        add(branch.getResult(use.getOperandNumber()));
      } else if (auto reduce = dyn_cast<tt::ReduceOp>(user)) {
        if (!orderFreeRowReduce(reduce))
          return std::nullopt;
      } else if (auto trunc = dyn_cast<arith::TruncFOp>(user)) {
        auto cast = trunc->hasOneUse() ? dyn_cast<tensor::CastOp>(*trunc->getUsers().begin())
                                       : tensor::CastOp();
        if (!cast || !hasWgmmaLayout(cast.getSource().getType()) ||
            !hasWgmmaF8ALayout(cast.getType()))
          return std::nullopt;
        casts.push_back(cast);
      } else if (user->getNumResults() == 1 && user->getNumRegions() == 0 &&
                 isa<arith::ArithDialect, math::MathDialect>(user->getDialect()) &&
                 user->getResult(0).getType() == v.getType() &&
                 llvm::all_of(user->getOperands(), [&](Value o) {
                   return region.contains(o) || rowUniform(o);
                 })) {
        add(user->getResult(0));
      } else {
        return std::nullopt;
      }
    }
  }
  if (casts.empty())
    return std::nullopt;
  return casts;
}

/// What the first element of index tile `v` is known to be a multiple of
/// (0: it is 0), where `v` is built of iotas from 0, splats, constants,
/// additions, multiplications, expansions and broadcasts; 1 otherwise.
int64_t originDivisibility(Value v, cuda::AxisInfoAnalysis &axis) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return 1;
  if (auto range = dyn_cast<tt::MakeRangeOp>(op))
    return range.getStart() == 0 ? 0 : 1;
  if (auto splat = dyn_cast<tt::SplatOp>(op)) {
    if (std::optional<int64_t> c = cuda::splatIntConstant(v))
      return std::abs(*c);
    return axis.get(splat.getSrc()).divisibility;
  }
  if (std::optional<int64_t> c = cuda::splatIntConstant(v))
    return std::abs(*c);
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(op))
    return originDivisibility(op->getOperand(0), axis);
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return std::gcd(originDivisibility(op->getOperand(0), axis),
                    originDivisibility(op->getOperand(1), axis));
  if (isa<arith::MulIOp>(op)) {
    // (A product too large to hold: either factor still divides it.)
    int64_t a = originDivisibility(op->getOperand(0), axis);
    int64_t b = originDivisibility(op->getOperand(1), axis);
    int64_t product;
    return llvm::MulOverflow(a, b, product) ? std::max(a, b) : product;
  }
  return 1;
}

/// Whether the first element of `ptrs` (a tile of pointers `step` elements
/// a row apart) lies at a row that is a multiple of 16: every offset added
/// to the array's base starts at a multiple of 16 rows.
bool rowsAlignedTo16(Value ptrs, int64_t step, cuda::AxisInfoAnalysis &axis) {
  while (auto add = ptrs.getDefiningOp<tt::AddPtrOp>()) {
    if (originDivisibility(add.getOffset(), axis) % (16 * step))
      return false;
    ptrs = add.getPtr();
  }
  return ptrs.getDefiningOp<tt::SplatOp>() != nullptr;
}

struct FragmentOrderKeys
    : public pallas::impl::PallasFragmentOrderKeysBase<FragmentOrderKeys> {
  void runOnOperation() override {
    getOperation().walk([&](tt::FuncOp func) { runOnFunction(func); });
  }

  void runOnFunction(tt::FuncOp func) {
    auto maps = func->getAttrOfType<ArrayAttr>(pgpu::kTensorMapsAttrName);
    if (!maps)
      return;
    // The scores dots by the ring their K^T comes from.
    llvm::MapVector<Value, SmallVector<tt::DotOp>> byRing;
    func.walk([&](tt::DotOp dot) {
      auto a = cast<RankedTensorType>(dot.getA().getType());
      if (Value ring = kRing(dot); ring && isF8(a.getElementType()) && hasWgmmaLayout(dot.getType()) &&
          !cuda::hasColumnSplitWgmmaLayout(dot.getType()))
        byRing[ring].push_back(dot);
    });
    cuda::AxisInfoAnalysis axis;
    SmallVector<Attribute> newMaps(maps.begin(), maps.end());
    for (auto &[ring, dots] : byRing) {
      // Every dot reading the ring must take the permutation.
      SmallVector<tensor::CastOp> casts;
      bool ok = true;
      for (tt::DotOp dot : dots) {
        std::optional<SmallVector<tensor::CastOp>> c = fragmentCasts(dot);
        ok = ok && c && rowUniform(dot.getC());
        if (ok)
          llvm::append_range(casts, *c);
      }
      // Filled by the TMA alone, through one map of its own, of static size.
      SmallVector<pgpu::TmaCopyOp> copies;
      int64_t reads = 0;
      for (Operation *user : ring.getUsers()) {
        if (auto copy = dyn_cast<pgpu::TmaCopyOp>(user))
          copies.push_back(copy);
        else if (isa<pgpu::RingReadOp>(user))
          ++reads;
        else
          ok = false;
      }
      if (!ok || copies.empty() || reads != (int64_t)dots.size())
        continue;
      int64_t index = copies.front().getTensorMap();
      auto map = cast<pgpu::TensorMapAttr>(maps[index]);
      ok = map.getRows() > 0 && map.getRows() % 16 == 0 && map.getRowElements() > 0 &&
           map.getBoxRows() % 16 == 0 && map.getDataType() < 0 && !map.getFragmentRows();
      for (pgpu::TmaCopyOp copy : copies)
        ok = ok && (int64_t)copy.getTensorMap() == index && !copy.getMulticast() &&
             rowsAlignedTo16(copy.getPtr(), map.getRowElements(), axis);
      // The map is the ring's alone (other copies read the array unpermuted).
      func.walk([&](Operation *op) {
        auto i = op->getAttrOfType<IntegerAttr>("tensor_map");
        if (i && i.getInt() == index && !llvm::is_contained(copies, dyn_cast<pgpu::TmaCopyOp>(op)))
          ok = false;
      });
      if (!ok)
        continue;
      newMaps[index] = pgpu::TensorMapAttr::get(
          func.getContext(), map.getParam(), map.getRows(), map.getRowElements(),
          map.getElemBytes(), map.getBoxRows(), map.getBoxCols(), map.getSwizzleBytes(),
          map.getDataType(), /*fragment_rows=*/true);
      for (tensor::CastOp c : casts)
        c->setAttr(pgpu::kKeysInFragmentOrderAttrName, UnitAttr::get(func.getContext()));
    }
    func->setAttr(pgpu::kTensorMapsAttrName, ArrayAttr::get(func.getContext(), newMaps));
  }
};

} // namespace
