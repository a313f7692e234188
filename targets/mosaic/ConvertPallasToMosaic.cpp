//===- ConvertPallasToMosaic.cpp - blocked kernels to Mosaic --------------===//
//
// Rebuilds each kernel as the Mosaic `func.func` JAX's Pallas TPU lowering
// builds (reference/jax-*-mosaic-*.mlir): grid indices, scalar-prefetch
// refs, blocks and scratch as arguments; window_params naming one
// @transform_i per windowed operand. The body is rebuilt op by op: tensors
// become vectors, ref accesses vector.load / tpu.vector_store, and the rest
// the vector, tpu and upstream ops JAX emits for the same primitives.
//
//===----------------------------------------------------------------------===//
#include "MosaicBodyLowering.h"
#include "pallas/Dialect/Pallas.h"
#include "pallas/Mosaic/MosaicPasses.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Spec/IndexMapToArith.h"

#include "mlir/IR/Builders.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_CONVERTPALLASTOMOSAIC
#include "pallas/Mosaic/MosaicPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::mosaic;

namespace {

//===----------------------------------------------------------------------===//
// The kernel function and its transform functions
//===----------------------------------------------------------------------===//

struct ConvertPallasToMosaicPass
    : public pallas::impl::ConvertPallasToMosaicBase<ConvertPallasToMosaicPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels;
    for (KernelOp k : module.getOps<KernelOp>())
      if (getLaunch(k))
        kernels.push_back(k);
    for (KernelOp k : kernels)
      if (failed(convert(k)))
        return signalPassFailure();
    // Index functions were copied into the transform functions; Mosaic
    // modules hold only the kernel and its transforms.
    SmallVector<Operation *> dead;
    for (Operation &op : module.getOps())
      if (copiedIndexFns.contains(&op))
        dead.push_back(&op);
    for (Operation *op : dead)
      op->erase();
  }

  /// Index functions copied into transform functions.
  llvm::SmallPtrSet<Operation *, 4> copiedIndexFns;

  LogicalResult convert(KernelOp kernel);
  FailureOr<func::FuncOp> transform(KernelOp kernel, Operation *after,
                                    unsigned arg, StringRef name,
                                    ArrayRef<Type> prefetchTypes,
                                    ArrayRef<unsigned> prefetchArgs,
                                    int64_t batchAxes, ArrayRef<int64_t> grid);
};

LogicalResult ConvertPallasToMosaicPass::convert(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  LaunchAttr launch = getLaunch(kernel);
  ArrayRef<int64_t> grid = launch.getGrid();
  int64_t batchAxes = launch.getBatchAxes();
  if (launch.getExpanded())
    return kernel.emitOpError("the mosaic target takes blocked kernels; do not "
                              "run pallas-expand-grid before it");

  // Signature: grid indices, then the arguments in Pallas's order.
  Block &entry = kernel.getBody().front();
  SmallVector<Type> argTypes(grid.size(), b.getI32Type());
  SmallVector<RefView> views;
  SmallVector<unsigned> prefetchArgs, windowed;
  SmallVector<Type> prefetchTypes;
  int64_t numScratch = 0;
  for (BlockArgument arg : entry.getArguments()) {
    unsigned i = arg.getArgNumber();
    BlockSpecAttr spec = getBlockSpec(kernel, i);
    Type t = arg.getType();
    if (!isa<RefType>(t)) {
      if (spec.getRole() != ArgRole::scratch)
        return kernel.emitOpError("argument #") << i << " must be a ref";
      argTypes.push_back(semaphoreMemref(t));
      views.push_back({});
      ++numScratch;
      continue;
    }
    auto ref = cast<RefType>(t);
    tpu::MemorySpace space = tpuSpace(ref.getMemorySpace());
    Type element = ref.getElementType();
    if (isa<SemaphoreType, DMASemaphoreType>(element)) {
      // An array of semaphores lives in semaphore memory.
      element = cast<MemRefType>(semaphoreMemref(element)).getElementType();
      space = tpu::MemorySpace::semaphore_mem;
    }
    SmallVector<int64_t> shape(ref.getShape());
    SmallVector<bool> hidden(ref.getRank(), false);
    if (spec.getRole() == ArgRole::prefetch) {
      space = tpu::MemorySpace::smem;
      prefetchArgs.push_back(i);
    } else if (spec.getRole() == ArgRole::scratch) {
      ++numScratch;
    } else {
      windowed.push_back(i);
      if (space == tpu::MemorySpace::any) {
        shape.assign(spec.getShape().begin(), spec.getShape().end());
      } else {
        shape.assign(spec.getBlock().begin(), spec.getBlock().end());
        hidden.clear();
        for (unsigned d = 0; d < shape.size(); ++d)
          hidden.push_back(spec.isSqueezed(d));
      }
    }
    MemRefType m = memrefOf(shape, element, space);
    argTypes.push_back(m);
    if (spec.getRole() == ArgRole::prefetch)
      prefetchTypes.push_back(m);
    views.push_back({Value(), hidden});
  }

  std::string name = kernel.getSymName().str();
  b.setInsertionPoint(kernel);
  auto fn = func::FuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  Block *body = fn.addEntryBlock();

  // Function attributes, as JAX sets them.
  SmallVector<Attribute> semantics;
  for (unsigned a = 0; a < grid.size(); ++a) {
    // Without dimension_semantics JAX marks every axis arbitrary (always
    // correct: programs run in order on one core).
    bool parallel = launch.hasDimensionSemantics() && launch.isParallel(a);
    semantics.push_back(tpu::DimensionSemanticsAttr::get(
        ctx, parallel ? tpu::DimensionSemantics::parallel
                      : tpu::DimensionSemantics::arbitrary));
  }
  fn->setAttr("dimension_semantics", b.getArrayAttr(semantics));
  if (!grid.empty())
    fn->setAttr("iteration_bounds", b.getDenseI64ArrayAttr(grid));
  fn->setAttr("scalar_prefetch", b.getI64IntegerAttr(prefetchArgs.size()));
  fn->setAttr("scratch_operands", b.getI64IntegerAttr(numScratch));
  fn->setAttr("tpu.core_type", tpu::CoreTypeAttr::get(ctx, tpu::CoreType::tc));

  // Window params and transform functions (JAX has none without a grid).
  if (!grid.empty()) {
    SmallVector<Attribute> windows;
    Operation *last = fn;
    for (auto [k, i] : llvm::enumerate(windowed)) {
      auto ref = cast<RefType>(entry.getArgument(i).getType());
      if (tpuSpace(ref.getMemorySpace()) == tpu::MemorySpace::any) {
        windows.push_back(b.getDictionaryAttr({}));
        continue;
      }
      std::string tname = "transform_" + std::to_string(k);
      FailureOr<func::FuncOp> t = transform(kernel, last, i, tname, prefetchTypes,
                                            prefetchArgs, batchAxes, grid);
      if (failed(t))
        return failure();
      last = *t;
      BlockSpecAttr spec = getBlockSpec(kernel, i);
      ArrayRef<int64_t> bounds = spec.getBlock();
      SmallVector<NamedAttribute> params{
          b.getNamedAttr("transform_indices", FlatSymbolRefAttr::get(ctx, tname)),
          b.getNamedAttr("window_bounds", b.getDenseI64ArrayAttr(bounds))};
      // A whole array at block (0, ...) needs no double buffering.
      AffineMap map = spec.getIndexMap();
      bool trivial = bounds == spec.getShape() && map &&
                     llvm::all_of(map.getResults(), [](AffineExpr e) {
                       auto c = dyn_cast<AffineConstantExpr>(e);
                       return c && c.getValue() == 0;
                     });
      if (trivial)
        params.push_back(b.getNamedAttr(
            "pipeline_mode",
            tpu::PipelineModeAttr::get(ctx, tpu::PipelineMode::synchronous)));
      windows.push_back(b.getDictionaryAttr(params));
    }
    fn->setAttr("window_params", b.getArrayAttr(windows));
  }

  // The body.
  OpBuilder bb = OpBuilder::atBlockEnd(body);
  SmallVector<Value> gridArgs(body->getArguments().take_front(grid.size()));
  BodyLowering lowering(bb, gridArgs, batchAxes, grid);
  for (BlockArgument arg : entry.getArguments()) {
    Value m = body->getArgument(grid.size() + arg.getArgNumber());
    if (isa<RefType>(arg.getType()))
      lowering.refs[arg] = {m, views[arg.getArgNumber()].hidden};
    else
      lowering.values.map(arg, m);
  }
  if (failed(lowering.lowerBlock(entry))) {
    fn.erase();
    return failure();
  }
  kernel.erase();
  return success();
}

/// `@transform_i(grid i32..., prefetch refs...) -> (i32...)`: the block
/// indices of kernel argument `arg`, from its affine index map or its
/// index function.
FailureOr<func::FuncOp> ConvertPallasToMosaicPass::transform(
    KernelOp kernel, Operation *after, unsigned arg, StringRef name,
    ArrayRef<Type> prefetchTypes,
    ArrayRef<unsigned> prefetchArgs, int64_t batchAxes, ArrayRef<int64_t> grid) {
  OpBuilder b(kernel.getContext());
  b.setInsertionPointAfter(after);
  Location loc = kernel.getLoc();
  BlockSpecAttr spec = getBlockSpec(kernel, arg);
  ArrayRef<int64_t> shape = spec.getShape();
  SmallVector<Type> args(grid.size(), b.getI32Type());
  llvm::append_range(args, prefetchTypes);
  SmallVector<Type> results(shape.size(), b.getI32Type());
  auto fn = func::FuncOp::create(b, loc, name, b.getFunctionType(args, results));
  Block *body = fn.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockEnd(body);
  SmallVector<Value> gridArgs(body->getArguments().take_front(grid.size()));

  if (FlatSymbolRefAttr fnRef = spec.getIndexFn()) {
    auto indexFn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(kernel, fnRef);
    if (!indexFn || !indexFn.getBody().hasOneBlock())
      return kernel.emitOpError("index function ")
             << fnRef << " not found or not a single block",
             failure();
    if (batchAxes)
      return kernel.emitOpError("index functions under vmap are not supported "
                                "by the mosaic target"),
             failure();
    Block &src = indexFn.getBody().front();
    if (src.getNumArguments() != grid.size() + prefetchArgs.size())
      return indexFn.emitOpError("takes ")
             << src.getNumArguments() << " arguments; the grid and scalar "
             << "prefetch give " << grid.size() + prefetchArgs.size(),
             failure();
    BodyLowering lowering(fb, gridArgs, 0, grid);
    for (unsigned g = 0; g < grid.size(); ++g)
      lowering.values.map(src.getArgument(g), gridArgs[g]);
    for (auto [p, type] : llvm::enumerate(prefetchTypes)) {
      BlockArgument formal = src.getArgument(grid.size() + p);
      auto ref = dyn_cast<RefType>(formal.getType());
      if (!ref)
        return indexFn.emitOpError("argument #")
               << grid.size() + p << " must be a scalar-prefetch ref",
               failure();
      lowering.refs[formal] = {body->getArgument(grid.size() + p),
                               SmallVector<bool>(ref.getRank(), false)};
    }
    if (failed(lowering.lowerBlock(src)))
      return fn.erase(), failure();
    copiedIndexFns.insert(indexFn);
    return fn;
  }
  SmallVector<Value> indices;
  if (AffineMap map = spec.getIndexMap()) {
    if (map.getNumDims() != grid.size() || map.getNumResults() != shape.size())
      return kernel.emitOpError("index map of argument #")
             << arg << " does not match the grid and the array rank",
             failure();
    for (AffineExpr e : map.getResults())
      indices.push_back(emitAffineExpr(fb, loc, e, gridArgs));
  } else {
    Value zero = arith::ConstantOp::create(fb, loc, fb.getI32IntegerAttr(0));
    indices.assign(shape.size(), zero);
  }
  func::ReturnOp::create(fb, loc, indices);
  return fn;
}

} // namespace
