//===- KernelWalker.h - the walk every kernel lowering shares ---*- C++ -*-===//
//
// The host, tile and Mosaic lowerings rebuild a kernel body op by op in their
// own IR. KernelWalker is what they share: the walk in program order, the
// recursion into the regions of other dialects' ops (scf.for, scf.if,
// scf.while, ...), which are rebuilt around their lowered blocks, and the
// dispatch of each pallas op to its `lower` hook.
//
// A target derives from it and overrides `lower(XOp)` for each pallas op it
// lowers; the others are refused by `notSupported`, in the target's words.
// The dispatch covers every op the dialect defines (its generated op list),
// so a new pallas op does not compile until it has a hook here, and is then
// one `lower` override per target.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_PASSES_KERNELWALKER_H
#define PALLAS_PASSES_KERNELWALKER_H

#include "pallas/Dialect/Pallas.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::pallas {

class KernelWalker {
public:
  virtual ~KernelWalker() = default;

  /// Lowers the ops of `block`, its terminator included, at the builder's
  /// insertion point.
  LogicalResult lowerBlock(Block &block);

  /// The lowered value of each value of the kernel.
  IRMapping values;

protected:
  KernelWalker(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// Lowers one op: sets `loc` to its location and dispatches it.
  LogicalResult lowerOp(Operation *op);
  /// Lowers the ops of `block` but its terminator, which the caller
  /// rebuilds (when the block becomes part of another, or carries more
  /// values than it yields).
  LogicalResult lowerOpsBeforeTerminator(Block &block);
  /// `op` rebuilt with its operands mapped through `values` and each of its
  /// blocks lowered by lowerBlock; `convertType` maps result and block
  /// argument types where the target's types differ.
  LogicalResult cloneWithLoweredRegions(Operation *op,
                                        function_ref<Type(Type)> convertType = nullptr);
  /// The body of `op` lowered where `op` stands, its results the values
  /// the body yields: for targets whose scoped allocations need no region
  /// of their own. The caller lowers the body's arguments first.
  LogicalResult lowerRunScopedInPlace(RunScopedOp op);

  /// The target's error for a pallas op it has no lowering for.
  virtual LogicalResult notSupported(Operation *op) = 0;
  /// Ops of other dialects (arith, math, scf, ...): rebuilt around their
  /// lowered regions. Calls are refused: the pipeline inlines them first.
  virtual LogicalResult lowerOtherOp(Operation *op);

  /// One hook per pallas op, in the dialect's (alphabetical) order.
  virtual LogicalResult lower(ArgMaxOp op) { return notSupported(op); }
  virtual LogicalResult lower(ArgMinOp op) { return notSupported(op); }
  virtual LogicalResult lower(AsyncCopyOp op) { return notSupported(op); }
  virtual LogicalResult lower(AtomicCASOp op) { return notSupported(op); }
  virtual LogicalResult lower(AtomicRMWOp op) { return notSupported(op); }
  virtual LogicalResult lower(BarrierOp op) { return notSupported(op); }
  virtual LogicalResult lower(BlockOp op) { return notSupported(op); }
  virtual LogicalResult lower(BroadcastOp op) { return notSupported(op); }
  virtual LogicalResult lower(ConcatenateOp op) { return notSupported(op); }
  virtual LogicalResult lower(CumsumOp op) { return notSupported(op); }
  virtual LogicalResult lower(DMAWaitOp op) { return notSupported(op); }
  virtual LogicalResult lower(DebugPrintOp op) { return notSupported(op); }
  virtual LogicalResult lower(DotOp op) { return notSupported(op); }
  virtual LogicalResult lower(IotaOp op) { return notSupported(op); }
  virtual LogicalResult lower(KernelOp op) { return notSupported(op); }
  virtual LogicalResult lower(LoadOp op) { return notSupported(op); }
  /// Hints lower to nothing on every target: the result is the operand.
  virtual LogicalResult lower(MaxContiguousOp op);
  virtual LogicalResult lower(MultipleOfOp op);
  virtual LogicalResult lower(NumProgramsOp op) { return notSupported(op); }
  virtual LogicalResult lower(ProgramIdOp op) { return notSupported(op); }
  virtual LogicalResult lower(ReduceOp op) { return notSupported(op); }
  virtual LogicalResult lower(RefSliceOp op) { return notSupported(op); }
  virtual LogicalResult lower(ReshapeOp op) { return notSupported(op); }
  virtual LogicalResult lower(ReturnOp op) { return notSupported(op); }
  virtual LogicalResult lower(RunScopedOp op) { return notSupported(op); }
  virtual LogicalResult lower(SemaphoreReadOp op) { return notSupported(op); }
  virtual LogicalResult lower(SemaphoreSignalOp op) { return notSupported(op); }
  virtual LogicalResult lower(SemaphoreWaitOp op) { return notSupported(op); }
  virtual LogicalResult lower(StoreOp op) { return notSupported(op); }
  virtual LogicalResult lower(SwapOp op) { return notSupported(op); }
  virtual LogicalResult lower(TransposeOp op) { return notSupported(op); }
  virtual LogicalResult lower(YieldOp op) { return notSupported(op); }

  OpBuilder &b;
  /// Where the op being lowered stands. Terminators do not move it: what a
  /// target builds once a block is lowered (a loop's yield, the function's
  /// return) takes the location of the last op lowered before.
  Location loc;

private:
  LogicalResult dispatch(Operation *op);
};

/// Lowers each kernel of `module` with `lowerKernel`, which builds its
/// replacement next to it, and erases it; then erases the functions that
/// take refs (index-map helpers, inlined into the kernels by now). The
/// kernels must be expanded (pallas-expand-grid): `destination` names where
/// they go in the error for one that is not ("the host").
LogicalResult lowerExpandedKernels(ModuleOp module, StringRef destination,
                                   function_ref<LogicalResult(KernelOp)> lowerKernel);

} // namespace mlir::pallas

#endif
