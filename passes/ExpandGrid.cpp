//===- ExpandGrid.cpp - block refs become views of whole arrays -----------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Passes/Passes.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Spec/IndexMapToArith.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

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
      if (kernel->hasAttr(attr::kGrid) && !kernel->hasAttr(attr::kExpanded))
        if (failed(expand(kernel)))
          return signalPassFailure();
  }

  LogicalResult expand(KernelOp kernel) {
    SmallVector<int64_t> grid = kernelGrid(kernel);
    int64_t batchAxes = 0;
    if (auto a = kernel->getAttrOfType<IntegerAttr>(attr::kBatchAxes))
      batchAxes = a.getInt();
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = kernel.getLoc();

    // Program ids of the (vmap-extended) grid.
    SmallVector<Value> pids;
    for (unsigned axis = 0; axis < grid.size(); ++axis)
      pids.push_back(ProgramIdOp::create(b, loc, b.getI32Type(), axis));
    SmallVector<Value> prefetch;
    for (BlockArgument arg : entry.getArguments())
      if (auto role = kernel.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                          attr::kRole);
          role && role.getValue() == "prefetch")
        prefetch.push_back(arg);

    SmallVector<Type> argTypes(kernel.getArgumentTypes());
    for (BlockArgument arg : entry.getArguments()) {
      unsigned i = arg.getArgNumber();
      auto role = kernel.getArgAttrOfType<StringAttr>(i, attr::kRole);
      if (!role)
        return kernel.emitOpError("argument #")
               << i << " has no pallas.role; attach the launch spec first";
      if (role.getValue() != "input" && role.getValue() != "output")
        continue;
      auto shape = kernel.getArgAttrOfType<DenseI64ArrayAttr>(i, attr::kShape);
      auto block = kernel.getArgAttrOfType<DenseI64ArrayAttr>(i, attr::kBlock);
      auto blockRef = dyn_cast<RefType>(arg.getType());
      if (!shape || !block || !blockRef ||
          shape.size() != block.size())
        return kernel.emitOpError("argument #")
               << i << " lacks a consistent pallas.shape / pallas.block";

      // Block indices from the index map or the index function.
      SmallVector<Value> indices;
      if (auto fnRef = kernel.getArgAttrOfType<FlatSymbolRefAttr>(i, attr::kIndexFn)) {
        auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(kernel, fnRef);
        if (!fn)
          return kernel.emitOpError("index function ") << fnRef << " not found";
        SmallVector<Value> args(pids.begin() + batchAxes, pids.end());
        args.append(prefetch.begin(), prefetch.end());
        FailureOr<SmallVector<Value>> r = inlineIndexFn(b, fn, args);
        if (failed(r))
          return failure();
        indices = *r;
      } else if (auto map = kernel.getArgAttrOfType<AffineMapAttr>(i, attr::kIndexMap)) {
        if (map.getValue().getNumDims() != pids.size())
          return kernel.emitOpError("index map of argument #")
                 << i << " takes " << map.getValue().getNumDims()
                 << " grid indices, the grid has " << pids.size();
        for (AffineExpr e : map.getValue().getResults())
          indices.push_back(emitAffineExpr(b, loc, e, pids));
      } else {
        Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
        indices.assign(shape.size(), zero);
      }
      if (indices.size() != static_cast<size_t>(shape.size()))
        return kernel.emitOpError("index map of argument #")
               << i << " gives " << indices.size() << " block indices for rank "
               << shape.size();

      SmallVector<int64_t> dims, squeezed;
      for (auto [d, size] : llvm::enumerate(block.asArrayRef())) {
        dims.push_back(size == 0 ? 1 : size);
        if (size == 0)
          squeezed.push_back(d);
      }
      auto arrayType = RefType::get(kernel.getContext(), shape.asArrayRef(),
                                    blockRef.getElementType(), MemorySpace::none);
      arg.setType(arrayType);
      argTypes[i] = arrayType;
      auto view = BlockOp::create(
          b, loc, blockRef, arg, indices, b.getDenseI64ArrayAttr(dims),
          squeezed.empty() ? DenseI64ArrayAttr() : b.getDenseI64ArrayAttr(squeezed));
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
      n.replaceAllUsesWith(
          arith::ConstantOp::create(nb, n.getLoc(), nb.getI32IntegerAttr(grid[axis]))
              .getResult());
      n.erase();
    }
    kernel->setAttr(attr::kExpanded, UnitAttr::get(kernel.getContext()));
    return success();
  }
};
} // namespace
