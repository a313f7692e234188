//===- ConvertPallasToTile.cpp - expanded kernels to tile IR --------------===//
//
// Rebuilds an expanded kernel as a `tt.func`: refs become a base pointer plus
// a compile-time View, accesses become tensors of pointers and masks, tensor
// primitives become tt ops; arith, math and scf pass through as Triton
// accepts them.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Dialect/Reductions.h"
#include "pallas/Passes/BlockView.h"
#include "pallas/Passes/BlockViewOps.h"
#include "pallas/Passes/ExpandF8Conversions.h"
#include "pallas/Passes/KernelWalker.h"
#include "pallas/Passes/RefAccess.h"
#include "pallas/Spec/IndexMapToArith.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/ProgramGrid.h"
#include "pallas/Tile/Tile.h"
#include "pallas/Tile/TileLowering.h"
#include "pallas/Tile/TilePasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_CONVERTPALLASTOTILE
#include "pallas/Tile/TilePasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

/// Whether integer (or integer tensor) `v` is at least 0 by how it is made:
/// non-negative constants, program ids, iotas and sizes, combined by
/// additions, multiplications, divisions, min/max and casts, and the
/// induction variables of loops that start there and count up.
static bool isNonNegative(Value v, int depth = 0) {
  if (depth > 24)
    return false;
  APInt c; // (m_ConstantInt matches splat tensors too)
  if (matchPattern(v, m_ConstantInt(&c)))
    return !c.isNegative();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A size (an integer argument of the function: at least 1).
    if (isa<tt::FuncOp>(arg.getOwner()->getParentOp()))
      return arg.getType().isInteger();
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    APInt step;
    return loop && arg == loop.getInductionVar() &&
           matchPattern(loop.getStep(), m_ConstantInt(&step)) && step.isStrictlyPositive() &&
           isNonNegative(loop.getLowerBound(), depth + 1);
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<tt::GetProgramIdOp, tt::MakeRangeOp>(def))
    return true;
  if (isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, arith::ExtSIOp, arith::ExtUIOp,
          arith::IndexCastOp>(def))
    return isNonNegative(def->getOperand(0), depth + 1);
  // An unsigned min with a non-negative value is at most that value.
  if (isa<arith::MinUIOp>(def))
    return isNonNegative(def->getOperand(0), depth + 1) ||
           isNonNegative(def->getOperand(1), depth + 1);
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
          arith::FloorDivSIOp, arith::RemSIOp, arith::RemUIOp, arith::MinSIOp, arith::MaxSIOp>(
          def))
    return isNonNegative(def->getOperand(0), depth + 1) &&
           isNonNegative(def->getOperand(1), depth + 1);
  return false;
}

/// The largest value integer (or integer tensor) `v` may take, by how it is
/// made (constants, ranges, program ids below their grid, loop induction
/// variables below a bounded end, and sums, products, quotients, mins,
/// maxes and selects of such), or none.
static std::optional<int64_t> upperBound(Value v, int depth = 0) {
  if (depth > 24)
    return std::nullopt;
  APInt c; // (m_ConstantInt matches splat tensors too)
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    APInt step;
    if (!loop || arg != loop.getInductionVar() ||
        !matchPattern(loop.getStep(), m_ConstantInt(&step)) || !step.isStrictlyPositive())
      return std::nullopt;
    std::optional<int64_t> end = upperBound(loop.getUpperBound(), depth + 1);
    return end ? std::optional<int64_t>(*end - 1) : std::nullopt;
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto range = dyn_cast<tt::MakeRangeOp>(def))
    return static_cast<int64_t>(range.getEnd()) - 1;
  if (isa<tt::GetProgramIdOp>(def)) {
    auto n = def->getAttrOfType<IntegerAttr>(tt::kProgramsAttrName);
    return n && n.getInt() > 0 ? std::optional<int64_t>(n.getInt() - 1) : std::nullopt;
  }
  if (isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, arith::ExtSIOp, arith::IndexCastOp>(def))
    return upperBound(def->getOperand(0), depth + 1);
  auto both = [&]() -> std::optional<std::pair<int64_t, int64_t>> {
    std::optional<int64_t> a = upperBound(def->getOperand(0), depth + 1);
    std::optional<int64_t> b = a ? upperBound(def->getOperand(1), depth + 1) : std::nullopt;
    if (!a || !b)
      return std::nullopt;
    return std::make_pair(*a, *b);
  };
  if (isa<arith::AddIOp>(def)) {
    auto ab = both();
    return ab ? std::optional<int64_t>(ab->first + ab->second) : std::nullopt;
  }
  if (isa<arith::MulIOp>(def) && isNonNegative(def->getOperand(0)) &&
      isNonNegative(def->getOperand(1))) {
    auto ab = both();
    return ab ? std::optional<int64_t>(ab->first * ab->second) : std::nullopt;
  }
  if (isa<arith::MaxSIOp, arith::SelectOp>(def)) {
    unsigned first = isa<arith::SelectOp>(def) ? 1 : 0;
    std::optional<int64_t> a = upperBound(def->getOperand(first), depth + 1);
    std::optional<int64_t> b = a ? upperBound(def->getOperand(first + 1), depth + 1) : std::nullopt;
    return a && b ? std::optional<int64_t>(std::max(*a, *b)) : std::nullopt;
  }
  if (isa<arith::MinSIOp>(def)) {
    std::optional<int64_t> a = upperBound(def->getOperand(0), depth + 1);
    std::optional<int64_t> b = upperBound(def->getOperand(1), depth + 1);
    if (a && b)
      return std::min(*a, *b);
    return a ? a : b;
  }
  return std::nullopt;
}

static bool isPow2Shape(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return !tensor || llvm::all_of(tensor.getShape(), [](int64_t d) {
           return d > 0 && llvm::isPowerOf2_64(d);
         });
}

FailureOr<Value> TileLowering::gridExtent(unsigned axis) {
  LaunchAttr launch = getLaunch(kernel);
  int64_t n = launch.getGrid()[axis];
  if (!ShapedType::isDynamic(n))
    return i32(n);
  FailureOr<Value> v = emitSizeExpr(
      b, loc, launch.getGridSizes()[axis].getValue(), [&](StringRef name) -> Value {
        Value s = sizes.lookup(name);
        return s ? (Value)arith::ExtSIOp::create(b, loc, b.getI64Type(), s) : Value();
      });
  if (failed(v))
    return failure();
  return (Value)arith::TruncIOp::create(b, loc, b.getI32Type(), *v);
}

View TileLowering::wholeView(Value ptr, RefType type) {
  return BlockView::whole(ptr, type.getShape(), type.getElementType(), i32(0));
}

View TileLowering::arrayView(Value ptr, BlockArgument arg) {
  auto type = cast<RefType>(arg.getType());
  View v = wholeView(ptr, type);
  if (type.hasStaticShape())
    return v;
  BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
  v.arraySizes.assign(type.getRank(), Value());
  for (auto [d, n] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(n))
      v.arraySizes[d] = sizes.lookup(spec.getSizeNames()[d].getValue());
  return v;
}

Value TileLowering::rangeAlong(unsigned d, ArrayRef<int64_t> shape) {
  Value r = tt::MakeRangeOp::create(
      b, loc, RankedTensorType::get({shape[d]}, b.getI32Type()), 0, shape[d]);
  return expandTo(r, {static_cast<int64_t>(d)}, shape);
}

/// Places the dims of `t` at positions `dimsOfT` of `shape` (size-1 dims
/// elsewhere) and broadcasts to `shape`.
Value TileLowering::expandTo(Value t, ArrayRef<int64_t> dimsOfT,
                               ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<int64_t> current(type.getShape());
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (llvm::is_contained(dimsOfT, static_cast<int64_t>(i)))
      continue;
    current.insert(current.begin() + i, 1);
    t = tt::ExpandDimsOp::create(
        b, loc, RankedTensorType::get(current, type.getElementType()), t, i);
  }
  if (ArrayRef<int64_t>(current) != shape)
    t = tt::BroadcastOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), t);
  return t;
}

LogicalResult TileLowering::checkRegisterShape(Operation *op, RefType ref, StringRef what) {
  if (ref.getRank() == 0 ||
      isPow2Shape(RankedTensorType::get(ref.getShape(), ref.getElementType())))
    return success();
  return op->emitOpError() << target() << " keeps " << what
                           << " in registers, in tensors of power-of-two sizes; got " << ref;
}

LogicalResult TileLowering::run() {
  LaunchAttr launch = getLaunch(kernel);
  std::string name = launch.getSymbol().str();
  ArrayRef<int64_t> grid = launch.getGrid();
  unsigned numOuter = launch.numLeadingParallelAxes();

  // Signature: one pointer per array; scratch lives in registers.
  Block &entry = kernel.getBody().front();
  SmallVector<Type> argTypes;
  SmallVector<unsigned> arrayArgs, sizeArgs;
  for (BlockArgument arg : entry.getArguments()) {
    if (isa<IntegerType>(arg.getType())) {
      sizeArgs.push_back(arg.getArgNumber());
      continue;
    }
    auto ref = dyn_cast<RefType>(arg.getType());
    if (!ref)
      return kernel.emitOpError("semaphores are not supported by ") << target();
    if (isScratchArg(kernel, arg.getArgNumber()))
      continue;
    // Symbolic arrays: the launch keeps them below 2^31 elements.
    if (ref.hasStaticShape() && ref.getNumElements() >= (int64_t{1} << 31))
      return kernel.emitOpError("argument #")
             << arg.getArgNumber()
             << ": arrays of 2^31 elements or more are not supported by " << target()
             << " yet";
    arrayArgs.push_back(arg.getArgNumber());
    argTypes.push_back(tt::PointerType::get(ref.getElementType()));
  }
  // Sizes after the pointers, as i32 (what Triton kernels take).
  for (size_t k = 0; k < sizeArgs.size(); ++k)
    argTypes.push_back(b.getI32Type());
  if (!sizeArgs.empty() && (!launch.getProgramOrder().empty() || numOuter > 3))
    return kernel.emitOpError("symbolic sizes with more than three parallel grid "
                              "axes or a program order are not supported yet");
  // Triton tensors have power-of-two sizes.
  WalkResult shapes = kernel.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (!isPow2Shape(t)) {
        op->emitOpError("produces ")
            << t << ", but " << target()
            << " needs power-of-two tensor sizes; use a power-of-two block (with a masked "
               "edge)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (shapes.wasInterrupted())
    return failure();

  b.setInsertionPoint(kernel);
  auto fn = tt::FuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}),
                               b.getStringAttr("public"), ArrayAttr(), ArrayAttr());
  for (unsigned i = 0; i < arrayArgs.size(); ++i) {
    fn.setArgAttr(i, "tt.divisibility", b.getI32IntegerAttr(16));
    // The CUDA targets may copy blocks of the array with the TMA, whose
    // tensor maps need its shape (Triton's IR gets no such attribute); a
    // symbolic size is -1 - (the size's argument).
    if (!logicalProgramIds)
      continue;
    // An input and the output sharing its buffer may address the same
    // memory (pallas-stage-loads keeps loads behind stores to either).
    if (kernel.getArgAttr(arrayArgs[i], PallasDialect::kAliasedAttrName))
      fn.setArgAttr(i, PallasDialect::kAliasedAttrName, b.getUnitAttr());
    BlockArgument arg = entry.getArgument(arrayArgs[i]);
    SmallVector<int64_t> shape(cast<RefType>(arg.getType()).getShape());
    BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
    for (size_t d = 0; d < shape.size(); ++d)
      if (ShapedType::isDynamic(shape[d])) {
        StringRef name = spec.getSizeNames()[d].getValue();
        auto at = llvm::find_if(sizeArgs, [&](unsigned s) {
          return getBlockSpec(kernel, s).getName() == name;
        });
        shape[d] = -1 - static_cast<int64_t>(arrayArgs.size() + (at - sizeArgs.begin()));
      }
    fn.setArgAttr(i, tt::kShapeAttrName, b.getDenseI64ArrayAttr(shape));
  }
  // A size's divisibility is what its multiple_of promises (Triton's
  // specialisation gives 16 where it holds).
  for (auto [k, argNo] : llvm::enumerate(sizeArgs)) {
    int64_t multiple = launch.sizeMultipleOf(getBlockSpec(kernel, argNo).getName());
    int64_t divisibility = multiple & -multiple;
    if (divisibility > 1)
      fn.setArgAttr(arrayArgs.size() + k, "tt.divisibility",
                    b.getI32IntegerAttr(std::min<int64_t>(divisibility, 16)));
  }
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  for (auto [k, argNo] : llvm::enumerate(sizeArgs)) {
    Value size = body->getArgument(arrayArgs.size() + k);
    sizes[getBlockSpec(kernel, argNo).getName()] = size;
    // The kernel computes on sizes as i64 (pallas-expand-grid).
    values.map(entry.getArgument(argNo),
               arith::ExtSIOp::create(b, loc, b.getI64Type(), size).getResult());
  }
  for (auto [i, argNo] : llvm::enumerate(arrayArgs))
    views[entry.getArgument(argNo)] = arrayView(body->getArgument(i), entry.getArgument(argNo));
  for (BlockArgument arg : entry.getArguments()) {
    if (!isScratchArg(kernel, arg.getArgNumber()))
      continue;
    if (failed(checkRegisterShape(kernel, cast<RefType>(arg.getType()), "scratch")))
      return failure();
    scratch[arg] = zeroedScratch(cast<RefType>(arg.getType()));
  }

  // Program ids: the leading parallel axes (ProgramGrid.h).
  ProgramGrid programs = programGridOf(launch);
  pids.assign(grid.size(), Value());
  if (programs.ordered && !logicalProgramIds) {
    Value linear = tt::GetProgramIdOp::create(b, loc, b.getI32Type(), tt::ProgramIDDim::X);
    SmallVector<Value> ids = orderedProgramIds(b, loc, linear, launch);
    std::copy(ids.begin(), ids.end(), pids.begin());
  } else if (!programs.folded) {
    for (unsigned a = 0; a < numOuter; ++a) {
      auto pid = tt::GetProgramIdOp::create(b, loc, b.getI32Type(), static_cast<tt::ProgramIDDim>(a));
      // The CUDA targets' ids are logical: below the axis's size, which
      // range analysis may use (Triton's IR gets no such attribute).
      if (logicalProgramIds && !ShapedType::isDynamic(grid[a]))
        pid->setAttr(tt::kProgramsAttrName, b.getI64IntegerAttr(grid[a]));
      pids[a] = pid;
    }
  } else {
    if (programs.launch[0] > (int64_t{1} << 31) - 1)
      return kernel.emitOpError("the grid's parallel axes hold ")
             << programs.launch[0] << " programs, more than Triton's 2^31 - 1";
    Value rest = tt::GetProgramIdOp::create(b, loc, b.getI32Type(), tt::ProgramIDDim::X);
    for (int a = numOuter - 1; a >= 0; --a) {
      pids[a] = arith::RemSIOp::create(b, loc, rest, i32(grid[a]));
      rest = arith::DivSIOp::create(b, loc, rest, i32(grid[a]));
    }
  }
  // The backends read the launch (and the program grid) off the function.
  setLaunch(fn, launch);

  // Sequential axes: loops inside the program, carrying the scratch values.
  std::function<LogicalResult(unsigned)> emit = [&](unsigned axis) -> LogicalResult {
    if (axis == grid.size())
      return lowerBlock(entry);
    SmallVector<Value> keys, inits;
    for (auto &[ref, v] : scratch) {
      keys.push_back(ref);
      inits.push_back(v);
    }
    FailureOr<Value> extent = gridExtent(axis);
    if (failed(extent))
      return failure();
    auto loop = scf::ForOp::create(b, loc, i32(0), *extent, i32(1), inits);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    pids[axis] = loop.getInductionVar();
    for (auto [k, arg] : llvm::zip(keys, loop.getRegionIterArgs()))
      scratch[k] = arg;
    if (failed(emit(axis + 1)))
      return failure();
    SmallVector<Value> yields;
    for (Value k : keys)
      yields.push_back(scratch[k]);
    b.setInsertionPointToEnd(loop.getBody());
    if (loop.getBody()->mightHaveTerminator())
      loop.getBody()->getTerminator()->erase();
    scf::YieldOp::create(b, loc, yields);
    for (auto [k, r] : llvm::zip(keys, loop.getResults()))
      scratch[k] = r;
    return success();
  };
  if (failed(emit(numOuter)))
    return failure();
  b.setInsertionPointToEnd(body);
  tt::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

SmallVector<Value> TileLowering::scratchWrittenIn(Operation *op) {
  SmallVector<Value> written;
  auto add = [&](Value ref) {
    if (scratch.count(ref) && !llvm::is_contained(written, ref))
      written.push_back(ref);
  };
  op->walk([&](Operation *inner) {
    if (auto store = dyn_cast<StoreOp>(inner))
      add(store.getRef());
    else if (auto copy = dyn_cast<AsyncCopyOp>(inner))
      add(copy.getDst());
    else if (isa<SemaphoreSignalOp, SemaphoreWaitOp>(inner))
      add(inner->getOperand(0));
  });
  return written;
}

LogicalResult TileLowering::lowerOtherOp(Operation *op) {
  for (Value v : op->getOperands())
    if (isa<RefType>(v.getType()))
      return op->emitOpError("passes a ref to an op ") << target() << " cannot lower";
  // A scalar splat into a tensor is a broadcast (pallas.broadcast's).
  if (auto splat = dyn_cast<tensor::SplatOp>(op); splat && splat.getType().hasStaticShape()) {
    values.map(splat.getResult(),
               tt::SplatOp::create(b, loc, splat.getType(), values.lookupOrDefault(splat.getInput())));
    return success();
  }
  // lax.slice of a value (JAX's matmul epilogues, row statistics taken
  // from lane-replicated blocks): kept for the CUDA target, whose
  // convert-tile-to-nvvm moves it through shared memory. Triton IR has
  // no such op.
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op); slice && !tritonDotLimits) {
    if (!slice.hasUnitStride() || slice.getSourceType().getRank() != slice.getType().getRank() ||
        !slice.getType().hasStaticShape() ||
        llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
      return op->emitOpError("is lowered for ")
             << target() << " where it is static, of unit stride and keeps the rank, so far";
    values.map(slice.getResult(),
               tensor::ExtractSliceOp::create(b, loc, slice.getType(),
                                              values.lookup(slice.getSource()),
                                              slice.getMixedOffsets(), slice.getMixedSizes(),
                                              slice.getMixedStrides())
                   .getResult());
    return success();
  }
  // Tile IR holds arith, math and scf beside its own ops.
  if (isa_and_nonnull<tensor::TensorDialect>(op->getDialect()))
    return op->emitOpError("is not supported on ") << target() << " yet (the host target runs it)";
  SmallVector<Value> written = scratchWrittenIn(op);
  if (!written.empty()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return lowerIfWithScratch(ifOp, written);
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return lowerForWithScratch(forOp, written);
    return op->emitOpError("writes scratch refs, scoped buffers or semaphores inside a region ")
           << target() << " cannot carry them through (scf.for and scf.if it can)";
  }
  return KernelWalker::lowerOtherOp(op);
}

/// scf.if writing scratch: both branches yield the scratch values too.
LogicalResult TileLowering::lowerIfWithScratch(scf::IfOp op,
                                                 ArrayRef<Value> written) {
  SmallVector<Type> types(op.getResultTypes());
  for (Value ref : written)
    types.push_back(scratch[ref].getType());
  auto copy = scf::IfOp::create(b, loc, types, values.lookupOrDefault(op.getCondition()),
                                /*withElseRegion=*/true);
  llvm::MapVector<Value, Value> before = scratch;
  auto lowerBranch = [&](Region &src, Block *dst) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    scratch = before;
    b.setInsertionPointToEnd(dst);
    if (dst->mightHaveTerminator())
      dst->getTerminator()->erase();
    SmallVector<Value> yields;
    if (!src.empty()) {
      if (failed(lowerOpsBeforeTerminator(src.front())))
        return failure();
      for (Value v : src.front().getTerminator()->getOperands())
        yields.push_back(values.lookupOrDefault(v));
    }
    for (Value ref : written)
      yields.push_back(scratch[ref]);
    scf::YieldOp::create(b, loc, yields);
    return success();
  };
  if (failed(lowerBranch(op.getThenRegion(), copy.thenBlock())) ||
      failed(lowerBranch(op.getElseRegion(), copy.elseBlock())))
    return failure();
  scratch = before;
  unsigned n = op.getNumResults();
  for (unsigned i = 0; i < n; ++i)
    values.map(op.getResult(i), copy.getResult(i));
  for (auto [i, ref] : llvm::enumerate(written))
    scratch[ref] = copy.getResult(n + i);
  return success();
}

/// scf.for writing scratch: the scratch values become iteration arguments.
LogicalResult TileLowering::lowerForWithScratch(scf::ForOp op,
                                                  ArrayRef<Value> written) {
  SmallVector<Value> inits;
  for (Value v : op.getInitArgs())
    inits.push_back(values.lookupOrDefault(v));
  for (Value ref : written)
    inits.push_back(scratch[ref]);
  auto copy = scf::ForOp::create(b, loc, values.lookupOrDefault(op.getLowerBound()),
                                 values.lookupOrDefault(op.getUpperBound()),
                                 values.lookupOrDefault(op.getStep()), inits);
  OpBuilder::InsertionGuard guard(b);
  Block *body = copy.getBody();
  values.map(op.getInductionVar(), copy.getInductionVar());
  unsigned n = op.getNumRegionIterArgs();
  for (unsigned i = 0; i < n; ++i)
    values.map(op.getRegionIterArgs()[i], copy.getRegionIterArgs()[i]);
  for (auto [i, ref] : llvm::enumerate(written))
    scratch[ref] = copy.getRegionIterArgs()[n + i];
  b.setInsertionPointToEnd(body);
  if (body->mightHaveTerminator())
    body->getTerminator()->erase();
  if (failed(lowerOpsBeforeTerminator(*op.getBody())))
    return failure();
  SmallVector<Value> yields;
  for (Value v : op.getBody()->getTerminator()->getOperands())
    yields.push_back(values.lookupOrDefault(v));
  for (Value ref : written)
    yields.push_back(scratch[ref]);
  scf::YieldOp::create(b, loc, yields);
  for (unsigned i = 0; i < op.getNumResults(); ++i)
    values.map(op.getResult(i), copy.getResult(i));
  for (auto [i, ref] : llvm::enumerate(written))
    scratch[ref] = copy.getResult(n + i);
  return success();
}

//===----------------------------------------------------------------------===//
// Refs and accesses
//===----------------------------------------------------------------------===//

LogicalResult TileLowering::lower(BlockOp op) {
  // A block index computed from data (a scalar-prefetch index map) may be
  // anything. One outside the array becomes the first block past its end
  // (an unsigned min: negative ones too), which keeps it outside (loads
  // read zeros, stores are dropped) while its offset stays non-negative
  // and in i32: so the TMA's bounds can stand for the bounds mask.
  auto refType = cast<RefType>(op.getRef().getType());
  bool ofArray = isa<BlockArgument>(op.getRef());
  ArrayRef<int64_t> blockShape = op.getBlockShape();
  unsigned d = 0;
  return addBlockView(b, loc, views, op, [&](Value i) {
    Value index = toI32(values.lookupOrDefault(i));
    int64_t size = refType.getShape()[d], block = blockShape[d];
    ++d;
    if (!ofArray || ShapedType::isDynamic(size) || block <= 0 || isNonNegative(index))
      return index;
    return (Value)arith::MinUIOp::create(b, loc, index, i32(llvm::divideCeil(size, block)));
  });
}

LogicalResult TileLowering::lower(RefSliceOp op) {
  if (!views.count(op.getRef()))
    return op.emitOpError("slices a ref ") << target() << " cannot trace to an array";
  return addSliceView(b, loc, views, op,
                      [&](Value i) { return toI32(values.lookupOrDefault(i)); });
}

LogicalResult TileLowering::access(Operation *op, Value ref,
                                     ArrayRef<int64_t> encoded,
                                     ValueRange indices, Access &out,
                                     const Placement *into) {
  auto &[ptrs, mask, shape, elementType, nonNegative] = out;
  auto it = views.find(ref);
  if (it == views.end())
    return op->emitOpError("accesses a ref ") << target() << " cannot trace to an array";
  const View &view = it->second;
  elementType = view.elementType;
  FailureOr<AccessShape> accessShape = AccessShape::of(op, ref, encoded, indices);
  if (failed(accessShape))
    return failure();
  const IndexerList &list = accessShape->list;
  const SmallVector<int64_t> &advanced = accessShape->advanced;
  shape = accessShape->result;
  SmallVector<Value> operands;
  for (Value v : indices)
    operands.push_back(values.lookupOrDefault(v));
  // (Copies take no tensor indexers, and their two windows have one shape:
  // the verifier's.)
  if (into)
    shape.assign(into->shape.begin(), into->shape.end());
  if (!isPow2Shape(RankedTensorType::get(shape, elementType)) && !shape.empty())
    return op->emitOpError("accesses a block of shape [")
           << shape << "]; " << target() << " needs power-of-two sizes";
  IndexerList::ResultLayout layout = list.resultLayout(advanced.size());
  SmallVector<Value> coords;
  unsigned next = 0;
  // A slice of the array's first dim from a start the kernel computed
  // from data (`x_ref[pl.ds(first_row[t], bm), :]`) may start anywhere:
  // clamped to [-size, rows] it lies wholly outside exactly where it did,
  // and its offset stays in i32, so the TMA's bounds (which read zeros
  // above the first row too) can stand for the bounds mask.
  bool outerClamped = false;
  for (auto [d, i] : llvm::enumerate(list.get())) {
    Value operand = i.takesOperand() ? operands[next++] : Value();
    if (i.kind == IndexerKind::Slice && d < view.dims.size() && view.dims[d].arrayDim == 0 &&
        view.dims[d].stride == 1 && matchPattern(view.dims[d].offset, m_Zero()) &&
        !ShapedType::isDynamic(view.arrayShape[0]) && !isNonNegative(toI32(operand))) {
      Value start = toI32(operand);
      start = arith::MinSIOp::create(b, loc, start, i32(view.arrayShape[0]));
      operand = arith::MaxSIOp::create(b, loc, start, i32(-i.size * i.stride));
      outerClamped = true;
    }
    switch (i.kind) {
    case IndexerKind::Full:
    case IndexerKind::Slice:
    case IndexerKind::SliceConst: {
      int64_t at = into ? into->windowDims[layout.sliceDim[d]] : layout.sliceDim[d];
      Value c = rangeAlong(at, shape);
      if (into && into->offsets[at])
        c = arith::SubIOp::create(b, loc, c, splat(into->offsets[at], shape));
      if (i.stride != 1)
        c = arith::MulIOp::create(b, loc, c, splat(i32(i.stride), shape));
      if (i.kind != IndexerKind::Full)
        c = arith::AddIOp::create(
            b, loc, c,
            splat(i.kind == IndexerKind::Slice ? toI32(operand) : i32(i.start), shape));
      coords.push_back(c);
      break;
    }
    case IndexerKind::Scalar:
      coords.push_back(splat(toI32(operand), shape));
      break;
    case IndexerKind::ScalarConst:
      coords.push_back(splat(i32(i.start), shape));
      break;
    case IndexerKind::Tensor: {
      Value t = toI32(operand);
      auto tt = cast<RankedTensorType>(t.getType());
      SmallVector<int64_t> at;
      for (int64_t j = 0; j < tt.getRank(); ++j)
        at.push_back(layout.advancedStart + advanced.size() - tt.getRank() + j);
      coords.push_back(expandTo(t, at, shape));
      break;
    }
    }
  }
  // Array indices, the in-bounds mask and the linear offset.
  SmallVector<Value> index(view.fixed.size());
  for (auto [k, f] : llvm::enumerate(view.fixed))
    if (f)
      index[k] = splat(f, shape);
  for (auto [d, vd] : llvm::enumerate(view.dims)) {
    Value c = coords[d];
    if (vd.stride != 1)
      c = arith::MulIOp::create(b, loc, c, splat(i32(vd.stride), shape));
    index[vd.arrayDim] = arith::AddIOp::create(b, loc, splat(vd.offset, shape), c);
  }
  // (TMA box coordinates are signed: the first dim may lie above row 0.
  // The TMA sees an array as rows of its last dim: a dim between the first
  // and the last may not overhang, or its rows would be the next matrix's.)
  nonNegative = llvm::all_of(llvm::enumerate(index), [&](auto k) {
    if (!k.value())
      return false;
    size_t d = k.index();
    if (d > 0 && d + 1 < index.size()) {
      std::optional<int64_t> top = upperBound(k.value());
      if (ShapedType::isDynamic(view.arrayShape[d]) || !top || *top >= view.arrayShape[d])
        return false;
    }
    return isNonNegative(k.value()) || (d == 0 && outerClamped);
  });
  mask = Value();
  Value linear;
  // Row-major strides: a constant while the dims behind are numbers, a
  // value (i32) from the first symbolic one on.
  int64_t stride = 1;
  Value dynamicStride;
  for (int k = view.arrayShape.size() - 1; k >= 0; --k) {
    bool symbolic = ShapedType::isDynamic(view.arrayShape[k]);
    Value size = symbolic ? view.arraySizes[k] : i32(view.arrayShape[k]);
    Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index[k],
                                     splat(i32(0), shape));
    Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index[k],
                                     splat(size, shape));
    Value ok = arith::AndIOp::create(b, loc, lo, hi);
    mask = mask ? (Value)arith::AndIOp::create(b, loc, mask, ok) : ok;
    Value term;
    if (dynamicStride)
      term = arith::MulIOp::create(b, loc, index[k], splat(dynamicStride, shape));
    else
      term = stride == 1 ? index[k]
                         : (Value)arith::MulIOp::create(b, loc, index[k],
                                                       splat(i32(stride), shape));
    linear = linear ? (Value)arith::AddIOp::create(b, loc, linear, term) : term;
    if (symbolic || dynamicStride)
      dynamicStride = arith::MulIOp::create(b, loc, dynamicStride ? dynamicStride : i32(stride),
                                            size);
    else
      stride *= view.arrayShape[k];
  }
  if (!linear) { // rank-0 array
    linear = splat(i32(0), shape);
    mask = splat(arith::ConstantIntOp::create(b, loc, 1, 1), shape);
  }
  Value base = splat(view.base, shape);
  ptrs = tt::AddPtrOp::create(b, loc, base.getType(), base, linear);
  return success();
}

LogicalResult TileLowering::lower(LoadOp op) {
  if (scratch.count(op.getRef()))
    return lowerScratchAccess(op);
  Access a;
  if (failed(access(op, op.getRef(), op.getIndexers(), op.getIndices(), a)))
    return failure();
  auto &[ptrs, mask, shape, elt, nonNegative] = a;
  if (op.getMask())
    mask = arith::AndIOp::create(b, loc, mask, values.lookup(op.getMask()));
  Type type = op.getResult().getType();
  Value other = op.getOther()
                    ? values.lookup(op.getOther())
                    : (Value)arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(type)));
  auto load = tt::LoadOp::create(b, loc, op.getResult().getType(), ptrs, mask, other);
  // A bounds mask (no user mask, zeros outside: blocks overhanging a
  // static or symbolic array): the CUDA targets may copy such blocks with
  // the TMA, whose bounds do the same.
  if (logicalProgramIds && !op.getMask() && !op.getOther() && nonNegative)
    load->setAttr(tt::kBoundsMaskAttrName, b.getUnitAttr());
  values.map(op.getResult(), load.getResult());
  return success();
}

static std::optional<tt::RMWOp> rmwFor(AtomicKind kind, Type elt) {
  bool isFloat = isa<FloatType>(elt);
  switch (kind) {
  case AtomicKind::add: return isFloat ? tt::RMWOp::FADD : tt::RMWOp::ADD;
  case AtomicKind::max: return isFloat ? std::nullopt : std::optional(tt::RMWOp::MAX);
  case AtomicKind::min: return isFloat ? std::nullopt : std::optional(tt::RMWOp::MIN);
  case AtomicKind::and_: return tt::RMWOp::AND;
  case AtomicKind::or_: return tt::RMWOp::OR;
  case AtomicKind::xor_: return tt::RMWOp::XOR;
  case AtomicKind::xchg: return tt::RMWOp::XCHG;
  }
  return std::nullopt;
}

LogicalResult TileLowering::lowerWrite(const RefWrite &write) {
  Operation *op = write.op;
  Value ref = write.ref, userMask = write.mask;
  std::optional<AtomicKind> atomic = write.atomic;
  if (scratch.count(ref))
    return lowerScratchAccess(op);
  Access a;
  if (failed(access(op, ref, write.indexers, write.indices, a)))
    return failure();
  auto &[ptrs, mask, shape, elt, inArray] = a;
  if (userMask)
    mask = arith::AndIOp::create(b, loc, mask, values.lookup(userMask));
  Value v = values.lookup(write.value);
  // As for loads: a bounds mask alone (blocks overhanging a static or
  // symbolic array), which the TMA's bounds can stand for (its stores and
  // reductions skip what lies outside).
  bool boundsMaskOnly = logicalProgramIds && !userMask && inArray;
  if (atomic) {
    std::optional<tt::RMWOp> kind = rmwFor(*atomic, elt);
    if (!kind)
      return op->emitOpError("atomic ")
             << stringifyAtomicKind(*atomic) << " on " << elt
             << " is not supported by " << target() << " yet";
    auto rmw = tt::AtomicRMWOp::create(b, loc, v.getType(), *kind, ptrs, v, mask,
                                       tt::MemSemantic::ACQUIRE_RELEASE, tt::MemSyncScope::GPU);
    if (boundsMaskOnly)
      rmw->setAttr(tt::kBoundsMaskAttrName, b.getUnitAttr());
    values.map(op->getResult(0), rmw.getResult());
    return success();
  }
  if (write.returnsOld) {
    Value zero = arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(v.getType())));
    values.map(op->getResult(0), tt::LoadOp::create(b, loc, v.getType(), ptrs, mask, zero).getResult());
  }
  auto store = tt::StoreOp::create(b, loc, ptrs, v, mask);
  if (boundsMaskOnly)
    store->setAttr(tt::kBoundsMaskAttrName, b.getUnitAttr());
  return success();
}

/// tt.atomic_cas has no mask, so one element at a time, under an scf.if on
/// the bounds check. Out of bounds nothing is swapped and the result is
/// `cmp + 1`: a value other than `cmp`, which tells the caller so.
LogicalResult TileLowering::lower(AtomicCASOp op) {
  if (isa<RankedTensorType>(op.getValue().getType()))
    return op.emitOpError() << target() << " supports compare-and-swap on one element at a "
                                           "time";
  Access a;
  if (failed(access(op, op.getRef(), op.getIndexers(), op.getIndices(), a)))
    return failure();
  auto &[ptr, mask, shape, elt, inArray] = a;
  Value cmp = values.lookup(op.getCmp()), val = values.lookup(op.getValue());
  auto guard = scf::IfOp::create(b, loc, TypeRange{elt}, mask, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    Value old = tt::AtomicCASOp::create(b, loc, elt, ptr, cmp, val,
                                        tt::MemSemantic::ACQUIRE_RELEASE,
                                        tt::MemSyncScope::GPU);
    scf::YieldOp::create(b, loc, old);
    b.setInsertionPointToStart(guard.elseBlock());
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, 1));
    scf::YieldOp::create(b, loc, Value(arith::AddIOp::create(b, loc, cmp, one)));
  }
  values.map(op.getResult(), guard.getResult(0));
  return success();
}

/// Which dims of scratch (or a scoped buffer) `ref` an access picks by
/// index, in order; every other dim must be whole (`:`).
FailureOr<SmallVector<std::pair<int64_t, Value>>>
TileLowering::scratchPicks(Operation *op, Value ref, ArrayRef<int64_t> encoded,
                             ValueRange indices) {
  auto type = cast<RefType>(ref.getType());
  IndexerList list = IndexerList::decode(encoded).expandedFor(type.getRank());
  SmallVector<std::pair<int64_t, Value>> picks;
  unsigned next = 0;
  for (auto [d, i] : llvm::enumerate(list.get())) {
    Value operand = i.takesOperand() ? values.lookupOrDefault(indices[next++]) : Value();
    if (i.kind == IndexerKind::Full)
      continue;
    if (i.kind != IndexerKind::Scalar && i.kind != IndexerKind::ScalarConst)
      return op->emitOpError()
             << target()
             << " keeps scratch and scoped buffers in registers: access them whole or by "
                "index along a dim ([...], [i, :]), not by "
             << (i.kind == IndexerKind::Tensor ? "tensor indices" : "slices") << " (dim " << d
             << ")";
    picks.push_back({static_cast<int64_t>(d), operand ? toI32(operand) : i32(i.start)});
  }
  return picks;
}

/// `tensor`'s slice at `index` along `dim`: a reduction over that dim that
/// keeps the element whose position matches (bit for bit: no arithmetic on
/// the values).
Value TileLowering::pickAlong(Value tensor, int64_t dim, Value index) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value flags =
      arith::ExtUIOp::create(b, loc, RankedTensorType::get(type.getShape(), b.getI32Type()),
                             atIndexAlong(dim, type.getShape(), index));
  auto reduce = reducePairs(tensor, flags, dim, [&](Value v1, Value f1, Value v2, Value f2) {
    Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, f2, i32(0));
    return std::make_pair<Value, Value>(arith::SelectOp::create(b, loc, second, v2, v1),
                                        arith::OrIOp::create(b, loc, f1, f2));
  });
  // An index out of range matches nothing: 0 then, as the host reads.
  auto [picked, found] = std::make_pair(reduce.getResult()[0], reduce.getResult()[1]);
  Value zero = arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(picked.getType())));
  Value none = arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(found.getType())));
  Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, found, none);
  return arith::SelectOp::create(b, loc, hit, picked, zero);
}

/// Loads and stores of scratch (and scoped buffers) read and replace its
/// value: whole, or picking dims by index (`buf[slot]`): a read reduces
/// those dims away (pickAlong), a write selects the stored value, broadcast
/// along them, where every picked dim is at its index.
LogicalResult TileLowering::lowerScratchAccess(Operation *op) {
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (load.getMask())
      return op->emitOpError() << target() << " keeps scratch in registers: read it unmasked";
    auto picks = scratchPicks(op, load.getRef(), load.getIndexers(), load.getIndices());
    if (failed(picks))
      return failure();
    Value v = scratch[load.getRef()];
    for (auto &[dim, index] : llvm::reverse(*picks))
      v = pickAlong(v, dim, index);
    values.map(load.getResult(), v);
    return success();
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (store.getMask())
      return op->emitOpError() << target() << " keeps scratch in registers: write it unmasked";
    auto picks = scratchPicks(op, store.getRef(), store.getIndexers(), store.getIndices());
    if (failed(picks))
      return failure();
    Value v = values.lookup(store.getValue());
    if (picks->empty()) {
      scratch[store.getRef()] = v;
      return success();
    }
    ArrayRef<int64_t> shape = cast<RefType>(store.getRef().getType()).getShape();
    SmallVector<int64_t> kept;
    Value at;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      auto pick = llvm::find_if(*picks, [&](auto &p) { return p.first == d; });
      if (pick == picks->end()) {
        kept.push_back(d);
        continue;
      }
      Value here = atIndexAlong(d, shape, pick->second);
      at = at ? (Value)arith::AndIOp::create(b, loc, at, here) : here;
    }
    Value placed = isa<RankedTensorType>(v.getType()) ? expandTo(v, kept, shape)
                                                       : splat(v, shape);
    scratch[store.getRef()] =
        arith::SelectOp::create(b, loc, at, placed, scratch[store.getRef()]);
    return success();
  }
  return op->emitOpError("is not supported on scratch refs by ") << target();
}

//===----------------------------------------------------------------------===//
// Tensor primitives
//===----------------------------------------------------------------------===//

LogicalResult TileLowering::lower(IotaOp op) {
  auto type = op.getResult().getType();
  Value r = rangeAlong(op.getDim(), type.getShape());
  if (!type.getElementType().isInteger(32)) {
    if (!type.getElementType().isSignlessInteger())
      return op.emitOpError() << target() << " needs integer iotas";
    r = type.getElementTypeBitWidth() > 32 ? (Value)arith::ExtSIOp::create(b, loc, type, r)
                                           : (Value)arith::TruncIOp::create(b, loc, type, r);
  }
  values.map(op.getResult(), r);
  return success();
}

LogicalResult TileLowering::lower(ReshapeOp op) {
  values.map(op.getResult(), tt::ReshapeOp::create(b, loc, op.getResult().getType(),
                                                   values.lookup(op.getInput()), false, false)
                                 .getResult());
  return success();
}

LogicalResult TileLowering::lower(TransposeOp op) {
  SmallVector<int32_t> order(op.getPermutation().begin(), op.getPermutation().end());
  values.map(op.getResult(), tt::TransOp::create(b, loc, op.getResult().getType(),
                                                 values.lookup(op.getInput()), order)
                                 .getResult());
  return success();
}

LogicalResult TileLowering::lower(ReduceOp op) {
  Value v = values.lookup(op.getInput());
  Type elt = op.getInput().getType().getElementType();
  SmallVector<int64_t> axes(op.getAxes());
  llvm::sort(axes, std::greater<int64_t>());
  for (int64_t axis : axes) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    Type result = shape.empty() ? elt : (Type)RankedTensorType::get(shape, elt);
    auto reduce = tt::ReduceOp::create(b, loc, TypeRange{result}, ValueRange{v},
                                       static_cast<int32_t>(axis));
    Block *block = new Block();
    reduce.getCombineOp().push_back(block);
    Value x = block->addArgument(elt, loc), y = block->addArgument(elt, loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(block);
    tt::ReduceReturnOp::create(b, loc, ValueRange{buildReductionCombiner(b, loc, op.getKind(), x, y)});
    v = reduce.getResult()[0];
  }
  values.map(op.getResult(), v);
  return success();
}

LogicalResult TileLowering::lower(CumsumOp op) {
  Type elt = op.getInput().getType().getElementType();
  auto scan = tt::ScanOp::create(b, loc, TypeRange{op.getResult().getType()},
                                 ValueRange{values.lookup(op.getInput())},
                                 static_cast<int32_t>(op.getAxis()), op.getReverse());
  Block *block = new Block();
  scan.getCombineOp().push_back(block);
  Value x = block->addArgument(elt, loc), y = block->addArgument(elt, loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(block);
  tt::ScanReturnOp::create(b, loc,
                           ValueRange{buildReductionCombiner(b, loc, ReductionKind::sum, x, y)});
  values.map(op.getResult(), scan.getResult()[0]);
  return success();
}

LogicalResult TileLowering::lower(BroadcastOp op) {
  Value in = values.lookup(op.getInput());
  auto type = op.getResult().getType();
  auto inType = dyn_cast<RankedTensorType>(in.getType());
  if (!inType) {
    values.map(op.getResult(), tt::SplatOp::create(b, loc, type, in));
    return success();
  }
  SmallVector<int64_t> dims = op.getInputToResultDims();
  values.map(op.getResult(), expandTo(in, dims, type.getShape()));
  return success();
}

LogicalResult TileLowering::lower(DotOp op) {
  Value a = values.lookup(op.getLhs()), bb = values.lookup(op.getRhs());
  auto resultType = op.getResult().getType();
  auto transposed = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(t.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    SmallVector<int32_t> order;
    for (int32_t i = 0; i < t.getRank(); ++i)
      order.push_back(i);
    std::swap(order[order.size() - 1], order[order.size() - 2]);
    return tt::TransOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v,
                               order);
  };
  if (op.getTransposeLhs())
    a = transposed(a);
  if (op.getTransposeRhs())
    bb = transposed(bb);
  for (Value v : {a, bb})
    for (int64_t d : cast<RankedTensorType>(v.getType()).getShape().take_back(2))
      if (d < 16 && tritonDotLimits)
        return op.emitOpError("the triton target needs dot operands of at least "
                              "16x16, got ")
               << v.getType();
  // Triton's minimum dot size: 8-bit operands contract over at least 32
  // (its tensor-core instructions are k32; shorter K computes wrong sums).
  int64_t contracted = cast<RankedTensorType>(a.getType()).getShape().back();
  if (tritonDotLimits &&
      op.getLhs().getType().getElementType().getIntOrFloatBitWidth() == 8 && contracted < 32)
    return op.emitOpError("the triton target needs 8-bit dot operands to contract "
                          "over at least 32 elements (Triton's minimum dot size), got ")
           << contracted;
  Value acc = op.getAcc() ? values.lookup(op.getAcc())
                          : (Value)arith::ConstantOp::create(
                                b, loc, cast<TypedAttr>(b.getZeroAttr(resultType)));
  Type in = op.getLhs().getType().getElementType();
  tt::InputPrecision precision = tt::InputPrecision::IEEE;
  StringRef requested = op.getPrecision().value_or("default");
  if (in.isF32())
    precision = requested == "highest" ? tt::InputPrecision::IEEE
                : requested == "high"  ? tt::InputPrecision::TF32x3
                                       : tt::InputPrecision::TF32;
  // f8 products may accumulate in the MMA's own (reduced) precision across
  // the whole contraction, as Triton's front end lets them on Hopper
  // (max_num_imprecise_acc = K); with 0 Triton keeps f8 dots off wgmma.
  int32_t impreciseAcc = isF8(in) ? static_cast<int32_t>(contracted) : 0;
  values.map(op.getResult(), tt::DotOp::create(b, loc, resultType, a, bb, acc, precision,
                                               impreciseAcc)
                                 .getResult());
  return success();
}

/// argmax/argmin: a two-operand tt.reduce over (value, index) that keeps
/// the first index among equal values, as jnp.argmax does.
template <typename ArgOp>
LogicalResult TileLowering::lowerArgReduce(ArgOp op, bool isMax) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  Type elt = type.getElementType();
  int64_t axis = op.getAxis();
  Value indices = rangeAlong(axis, type.getShape());
  auto reduce = reducePairs(
      values.lookup(op.getInput()), indices, axis, [&](Value v1, Value i1, Value v2, Value i2) {
        Value better, equal;
        if (isa<FloatType>(elt)) {
          better = arith::CmpFOp::create(b, loc, isMax ? arith::CmpFPredicate::OGT
                                                       : arith::CmpFPredicate::OLT, v2, v1);
          equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v2, v1);
        } else {
          better = arith::CmpIOp::create(b, loc, isMax ? arith::CmpIPredicate::sgt
                                                       : arith::CmpIPredicate::slt, v2, v1);
          equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v2, v1);
        }
        Value earlier = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i2, i1);
        Value take = arith::OrIOp::create(b, loc, better,
                                          arith::AndIOp::create(b, loc, equal, earlier));
        return std::make_pair<Value, Value>(arith::SelectOp::create(b, loc, take, v2, v1),
                                            arith::SelectOp::create(b, loc, take, i2, i1));
      });
  values.map(op.getResult(), reduce.getResult()[1]);
  return success();
}

tt::ReduceOp TileLowering::reducePairs(
    Value values, Value tags, int64_t axis,
    function_ref<std::pair<Value, Value>(Value, Value, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(values.getType());
  Type elt = type.getElementType(), i32Type = b.getI32Type();
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto withElt = [&](Type e) -> Type {
    return shape.empty() ? e : (Type)RankedTensorType::get(shape, e);
  };
  auto reduce = tt::ReduceOp::create(b, loc, TypeRange{withElt(elt), withElt(i32Type)},
                                     ValueRange{values, tags}, static_cast<int32_t>(axis));
  Block *block = new Block();
  reduce.getCombineOp().push_back(block);
  Value v1 = block->addArgument(elt, loc), t1 = block->addArgument(i32Type, loc);
  Value v2 = block->addArgument(elt, loc), t2 = block->addArgument(i32Type, loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(block);
  auto [v, t] = combine(v1, t1, v2, t2);
  tt::ReduceReturnOp::create(b, loc, ValueRange{v, t});
  return reduce;
}

/// Two equal-shape tensors along `dim`: tt.join stacks them on a new last
/// axis, which a transpose moves next to `dim` and a reshape merges into it.
LogicalResult TileLowering::lower(ConcatenateOp op) {
  if (op.getInputs().size() != 2 ||
      op.getInputs()[0].getType() != op.getInputs()[1].getType())
    return op.emitOpError() << target() << " concatenates exactly two tensors of the same shape";
  auto type = cast<RankedTensorType>(op.getInputs()[0].getType());
  int64_t rank = type.getRank(), dim = op.getDim();
  SmallVector<int64_t> joined(type.getShape());
  joined.push_back(2);
  Value j = tt::JoinOp::create(b, loc, RankedTensorType::get(joined, type.getElementType()),
                               values.lookup(op.getInputs()[0]),
                               values.lookup(op.getInputs()[1]));
  // [.., d, .., 2] -> [.., 2, d, ..]: the pair index outermost within dim.
  SmallVector<int32_t> order;
  SmallVector<int64_t> moved;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == dim) {
      order.push_back(rank);
      moved.push_back(2);
    }
    order.push_back(i);
    moved.push_back(type.getShape()[i]);
  }
  Value t = tt::TransOp::create(b, loc, RankedTensorType::get(moved, type.getElementType()),
                                j, order);
  values.map(op.getResult(),
             tt::ReshapeOp::create(b, loc, op.getResult().getType(), t, false, false)
                 .getResult());
  return success();
}

/// Scoped buffers live in registers as scratch does (zeroed); DMA
/// semaphores need nothing, copies being done when they start
/// (lower(AsyncCopyOp)); a semaphore is a counter (an i32 from 0) the
/// program alone sees (lowerSemaphoreOp). They go out of scope with the region.
LogicalResult TileLowering::lower(RunScopedOp op) {
  Block &body = op.getBody().front();
  SmallVector<Value> scoped;
  for (BlockArgument a : body.getArguments()) {
    auto ref = dyn_cast<RefType>(a.getType());
    if (ref && isa<SemaphoreType, DMASemaphoreType>(ref.getElementType()))
      return op.emitOpError("takes an array of semaphores (")
             << a.getType() << "), which " << target()
             << " does not support (single ones it does)";
    if (isa<DMASemaphoreType>(a.getType()))
      continue;
    if (ref && failed(checkRegisterShape(op, ref, "a scoped buffer")))
      return failure();
    scratch[a] = ref ? zeroedScratch(ref) : i32(0);
    scoped.push_back(a);
  }
  if (failed(lowerRunScopedInPlace(op)))
    return failure();
  for (Value a : scoped)
    scratch.erase(a);
  return success();
}

/// A scoped semaphore's ops on its counter: signal adds, wait subtracts (a
/// wait for more than was signalled would never return on a chip, where no
/// one else can signal it; here the count goes below zero and the program
/// goes on, as on the host), read reads.
LogicalResult TileLowering::lowerSemaphoreOp(Operation *op) {
  Value sem = op->getOperand(0);
  // (The kernel's own semaphore arguments are refused with its signature.)
  if (!scratch.count(sem))
    return op->emitOpError("signals, waits on or reads a DMA semaphore, which ")
           << target() << " does not (its copies are done when they start)";
  if (auto read = dyn_cast<SemaphoreReadOp>(op)) {
    values.map(read.getResult(), scratch[sem]);
    return success();
  }
  Value amount = toI32(values.lookupOrDefault(op->getOperand(1)));
  scratch[sem] = isa<SemaphoreSignalOp>(op)
                     ? (Value)arith::AddIOp::create(b, loc, scratch[sem], amount)
                     : (Value)arith::SubIOp::create(b, loc, scratch[sem], amount);
  return success();
}

/// The part of a scoped buffer a copy names: each dim a slice (or `:`) of
/// stride 1 or a scalar index (`buf.at[slot]`, the dim squeezed from the
/// window), as offsets into the buffer and the mask of its elements in it.
FailureOr<TileLowering::Placement>
TileLowering::bufferWindow(Operation *op, Value buffer, ArrayRef<int64_t> encoded,
                             ValueRange indices) {
  auto ref = cast<RefType>(buffer.getType());
  Placement at;
  at.shape.assign(ref.getShape().begin(), ref.getShape().end());
  IndexerList list = IndexerList::decode(encoded).expandedFor(ref.getRank());
  unsigned next = 0;
  for (auto [d, i] : llvm::enumerate(list.get())) {
    Value operand = i.takesOperand() ? toI32(values.lookupOrDefault(indices[next++])) : Value();
    bool scalar = i.kind == IndexerKind::Scalar || i.kind == IndexerKind::ScalarConst;
    if (!scalar && i.stride != 1)
      return op->emitOpError("copies into or out of scoped buffer dim ")
             << d << " by a strided slice; " << target() << " takes slices of stride 1 "
             << "(`:`, ds(start, size)) and indices";
    if (i.kind == IndexerKind::Full) {
      at.offsets.push_back(Value());
      at.windowDims.push_back(d);
      continue;
    }
    Value start = operand ? operand : i32(i.start);
    at.offsets.push_back(start);
    Value in;
    if (scalar) {
      in = atIndexAlong(d, at.shape, start);
    } else {
      at.windowDims.push_back(d);
      Value p = rangeAlong(d, at.shape);
      Value lo =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, p, splat(start, at.shape));
      Value end = arith::AddIOp::create(b, loc, start, i32(i.size));
      Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, p, splat(end, at.shape));
      in = arith::AndIOp::create(b, loc, lo, hi);
    }
    at.inWindow = at.inWindow ? (Value)arith::AndIOp::create(b, loc, at.inWindow, in) : in;
  }
  return at;
}

/// A copy between an array window and a scoped buffer, done when it
/// starts: a masked load of the window into the buffer's value, or a masked
/// store of the buffer's value into the window. Into or out of part of the
/// buffer, the array is addressed over the buffer's whole shape (each
/// element at its place in the window) and the other elements are masked
/// off: a load keeps their values, a store skips them. dma_wait has nothing
/// left to wait for.
LogicalResult TileLowering::lower(AsyncCopyOp op) {
  bool fromBuffer = scratch.count(op.getSrc()), toBuffer = scratch.count(op.getDst());
  if (fromBuffer == toBuffer)
    return op.emitOpError("copies between ")
           << (toBuffer ? "two scoped buffers" : "two arrays")
           << "; " << target() << " copies between an array window and a scoped buffer";
  Value buffer = toBuffer ? op.getDst() : op.getSrc();
  ArrayRef<int64_t> bufferIndexers = toBuffer ? op.getDstIndexers() : op.getSrcIndexers();
  std::optional<Placement> part;
  if (!bufferIndexers.empty()) {
    FailureOr<Placement> at =
        bufferWindow(op, buffer, bufferIndexers, toBuffer ? op.getDstIndices() : op.getSrcIndices());
    if (failed(at))
      return failure();
    // (All of it: `[:, :]` is `[...]`.)
    if (at->inWindow)
      part = std::move(*at);
  }
  const Placement *into = part ? &*part : nullptr;
  Access a;
  if (failed(toBuffer
                 ? access(op, op.getSrc(), op.getSrcIndexers(), op.getSrcIndices(), a, into)
                 : access(op, op.getDst(), op.getDstIndexers(), op.getDstIndices(), a, into)))
    return failure();
  // (The window's shape is the buffer's, or part of it addressed over it.)
  Type type = scratch[buffer].getType();
  Value mask = into ? (Value)arith::AndIOp::create(b, loc, a.mask, into->inWindow) : a.mask;
  if (toBuffer) {
    Value other = into ? scratch[buffer]
                       : (Value)arith::ConstantOp::create(b, loc,
                                                          cast<TypedAttr>(b.getZeroAttr(type)));
    auto load = tt::LoadOp::create(b, loc, type, a.ptrs, mask, other);
    // The CUDA targets may run a whole-buffer copy asynchronously
    // (pallas-async-copies).
    if (logicalProgramIds && !into)
      load->setAttr(tt::kAsyncCopyAttrName, b.getUnitAttr());
    scratch[buffer] = load.getResult();
  } else {
    tt::StoreOp::create(b, loc, a.ptrs, scratch[buffer], mask);
  }
  return success();
}

namespace {
struct ConvertPallasToTilePass
    : public pallas::impl::ConvertPallasToTileBase<ConvertPallasToTilePass> {
  using ConvertPallasToTileBase::ConvertPallasToTileBase;
  void runOnOperation() override {
    if (failed(lowerExpandedKernels(getOperation(), "Triton", [&](KernelOp kernel) {
          OpBuilder b(kernel);
          return TileLowering(kernel, b, tritonDotLimits, logicalProgramIds).run();
        })))
      return signalPassFailure();
  }
};
} // namespace
