//===- KernelWalker.cpp - the walk every kernel lowering shares -----------===//
#include "pallas/Passes/KernelWalker.h"

#include "pallas/Passes/CloneLowering.h"
#include "pallas/Spec/LaunchAttributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas;

LogicalResult KernelWalker::lowerBlock(Block &block) {
  if (failed(lowerOpsBeforeTerminator(block)))
    return failure();
  // (Without moving `loc`: see its comment.)
  return dispatch(block.getTerminator());
}

LogicalResult KernelWalker::lowerOpsBeforeTerminator(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult KernelWalker::lowerOp(Operation *op) {
  loc = op->getLoc();
  return dispatch(op);
}

LogicalResult KernelWalker::dispatch(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<
#define GET_OP_LIST
#include "pallas/Dialect/PallasOps.cpp.inc"
          >([&](auto pallasOp) { return lower(pallasOp); })
      .Default([&](Operation *other) { return lowerOtherOp(other); });
}

LogicalResult KernelWalker::lowerOtherOp(Operation *op) {
  if (isa<func::CallOp>(op))
    return op->emitOpError("calls must be inlined before lowering");
  return cloneWithLoweredRegions(op);
}

LogicalResult KernelWalker::cloneWithLoweredRegions(Operation *op,
                                                    function_ref<Type(Type)> convertType) {
  return cloneLoweringRegions(
      b, op, values, [&](Block &block) { return lowerBlock(block); }, convertType);
}

LogicalResult KernelWalker::lowerRunScopedInPlace(RunScopedOp op) {
  Block &body = op.getBody().front();
  if (failed(lowerOpsBeforeTerminator(body)))
    return failure();
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [r, v] : llvm::zip(op.getResults(), yield.getValues()))
    values.map(r, values.lookupOrDefault(v));
  return success();
}

LogicalResult KernelWalker::lower(MaxContiguousOp op) {
  values.map(op.getResult(), values.lookupOrDefault(op.getInput()));
  return success();
}

LogicalResult KernelWalker::lower(MultipleOfOp op) {
  values.map(op.getResult(), values.lookupOrDefault(op.getInput()));
  return success();
}

LogicalResult mlir::pallas::lowerExpandedKernels(
    ModuleOp module, StringRef destination,
    function_ref<LogicalResult(KernelOp)> lowerKernel) {
  SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
  for (KernelOp kernel : kernels) {
    if (LaunchAttr launch = getLaunch(kernel); !launch || !launch.getExpanded())
      return kernel.emitOpError("must be expanded (pallas-expand-grid) before lowering to ")
             << destination;
    if (failed(lowerKernel(kernel)))
      return failure();
    kernel.erase();
  }
  SmallVector<func::FuncOp> dead;
  for (func::FuncOp fn : module.getOps<func::FuncOp>())
    if (llvm::any_of(fn.getArgumentTypes(), [](Type t) { return isa<RefType>(t); }))
      dead.push_back(fn);
  for (func::FuncOp fn : dead)
    fn.erase();
  return success();
}
