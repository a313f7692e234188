//===- ExpandGrid.cpp - block refs become views of whole arrays -----------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Spec/IndexMapToArith.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASEXPANDGRID
#include "pallas/Passes/Passes.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Inlines the single-block `fn` at `b`, returning what it returns.
FailureOr<SmallVector<Value>> inlineIndexFn(OpBuilder &b, func::FuncOp fn,
                                            ArrayRef<Value> args) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("index map functions must have a single block"),
           failure();
  IRMapping map;
  for (auto [formal, actual] : llvm::zip(fn.getArguments(), args))
    map.map(formal, actual);
  SmallVector<Value> results;
  for (Operation &op : fn.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands())
        results.push_back(map.lookup(v));
      break;
    }
    b.clone(op, map);
  }
  return results;
}

struct ExpandGridPass
    : public pallas::impl::PallasExpandGridBase<ExpandGridPass> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      if (LaunchAttr launch = getLaunch(kernel); launch && !launch.getExpanded())
        if (failed(expand(kernel, launch)))
          return signalPassFailure();
  }

  LogicalResult expand(KernelOp kernel, LaunchAttr launch) {
    ArrayRef<int64_t> grid = launch.getGrid();
    int64_t batchAxes = launch.getBatchAxes();
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = kernel.getLoc();

    // Symbolic sizes arrive as trailing i64 arguments, in the launch's order.
    llvm::StringMap<Value> sizes;
    for (StringAttr name : launch.getSizes()) {
      unsigned at = kernel.getNumArguments();
      if (failed(kernel.insertArgument(at, b.getI64Type(), {}, loc)))
        return failure();
      setBlockSpec(kernel, at,
                   BlockSpecAttr::get(kernel.getContext(), ArgRole::size,
                                      name.getValue(), {}, {}, {}, AffineMap(),
                                      FlatSymbolRefAttr(), {}));
      sizes[name.getValue()] = entry.getArgument(at);
    }

    // Program ids of the (vmap-extended) grid.
    SmallVector<Value> pids;
    for (unsigned axis = 0; axis < grid.size(); ++axis)
      pids.push_back(ProgramIdOp::create(b, loc, b.getI32Type(), axis));
    SmallVector<Value> prefetch;
    for (BlockArgument arg : entry.getArguments())
      if (BlockSpecAttr spec = getBlockSpec(kernel, arg.getArgNumber());
          spec && spec.getRole() == ArgRole::prefetch)
        prefetch.push_back(arg);

    SmallVector<Type> argTypes(kernel.getArgumentTypes());
    for (BlockArgument arg : entry.getArguments()) {
      if (isa<IntegerType>(arg.getType()))
        continue; // a size
      unsigned i = arg.getArgNumber();
      // The dialect verifier holds every argument of a launched kernel to a spec.
      BlockSpecAttr spec = getBlockSpec(kernel, i);
      if (!spec.isBlocked())
        continue;
      ArrayRef<int64_t> shape = spec.getShape();
      auto blockRef = cast<RefType>(arg.getType());

      // Block indices from the index map or the index function.
      SmallVector<Value> indices;
      if (FlatSymbolRefAttr fnRef = spec.getIndexFn()) {
        auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(kernel, fnRef);
        if (!fn)
          return kernel.emitOpError("index function ") << fnRef << " not found";
        SmallVector<Value> args(pids.begin() + batchAxes, pids.end());
        args.append(prefetch.begin(), prefetch.end());
        FailureOr<SmallVector<Value>> r = inlineIndexFn(b, fn, args);
        if (failed(r))
          return failure();
        indices = *r;
      } else if (AffineMap map = spec.getIndexMap()) {
        if (map.getNumDims() != pids.size())
          return kernel.emitOpError("index map of argument #")
                 << i << " takes " << map.getNumDims()
                 << " grid indices, the grid has " << pids.size();
        for (AffineExpr e : map.getResults())
          indices.push_back(emitAffineExpr(b, loc, e, pids));
      } else {
        Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
        indices.assign(shape.size(), zero);
      }
      if (indices.size() != static_cast<size_t>(shape.size()))
        return kernel.emitOpError("index map of argument #")
               << i << " gives " << indices.size() << " block indices for rank "
               << shape.size();

      auto arrayType = RefType::get(kernel.getContext(), shape,
                                    blockRef.getElementType(), MemorySpace::none);
      arg.setType(arrayType);
      argTypes[i] = arrayType;
      auto view = BlockOp::create(
          b, loc, blockRef, arg, indices, b.getDenseI64ArrayAttr(spec.getBlock()),
          spec.getSqueezed().empty() ? DenseI64ArrayAttr()
                                     : b.getDenseI64ArrayAttr(spec.getSqueezed()));
      arg.replaceAllUsesExcept(view.getResult(), view);
    }
    kernel.setFunctionTypeAttr(TypeAttr::get(
        FunctionType::get(kernel.getContext(), argTypes, {})));

    // Kernel program ids move past the vmap axes; num_programs is a constant.
    SmallVector<Operation *> queries;
    kernel.walk([&](Operation *op) {
      if (isa<ProgramIdOp, NumProgramsOp>(op) &&
          !llvm::is_contained(pids, op->getResult(0)))
        queries.push_back(op);
    });
    for (Operation *op : queries) {
      if (auto p = dyn_cast<ProgramIdOp>(op)) {
        p.setAxis(p.getAxis() + batchAxes);
        continue;
      }
      auto n = cast<NumProgramsOp>(op);
      OpBuilder nb(n);
      unsigned axis = n.getAxis() + batchAxes;
      if (axis >= grid.size())
        return n.emitOpError("grid axis ") << n.getAxis() << " does not exist";
      Value count;
      if (ShapedType::isDynamic(grid[axis])) {
        // Computed from the sizes where it is asked for (the launch keeps
        // every grid extent below 2^31).
        FailureOr<Value> v = emitSizeExpr(
            nb, n.getLoc(), launch.getGridSizes()[axis].getValue(),
            [&](StringRef name) { return sizes.lookup(name); });
        if (failed(v))
          return failure();
        count = arith::TruncIOp::create(nb, n.getLoc(), nb.getI32Type(), *v);
      } else {
        count = arith::ConstantOp::create(nb, n.getLoc(),
                                          nb.getI32IntegerAttr(grid[axis]));
      }
      n.replaceAllUsesWith(count);
      n.erase();
    }
    setLaunch(kernel, launch.asExpanded());
    return success();
  }
};
} // namespace
