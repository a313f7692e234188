//===- ForwardScratch.cpp - scratch refs read back what was stored --------===//
//
// Scoped scratch that a kernel only ever reads and writes whole (an
// accumulator `acc[...] = acc[...] + x`, an SMEM buffer a copy fills and a
// dot reads) is a value passed through memory. Forwarding each whole load
// the value last stored, and carrying a loop's scratch in the loop instead,
// leaves the values where the lowerings see them: a dot of loads from
// global memory (which the GPU targets stage and pipeline themselves) and
// an accumulator that stays in registers.
//
//===----------------------------------------------------------------------===//
#include "pallas/Passes/ForwardScratch.h"
#include "pallas/Dialect/Pallas.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::pallas;

namespace {

bool isWhole(LoadOp op) { return op.getIndexers().empty() && !op.getMask(); }
bool isWhole(StoreOp op) { return op.getIndexers().empty() && !op.getMask(); }

/// Scoped refs whose every use is a whole, unmasked load or store.
SetVector<Value> wholeScratch(KernelOp kernel) {
  SetVector<Value> refs;
  kernel.walk([&](RunScopedOp scoped) {
    for (BlockArgument a : scoped.getBody().getArguments()) {
      if (!isa<RefType>(a.getType()))
        continue;
      bool whole = llvm::all_of(a.getUses(), [&](OpOperand &use) {
        if (auto load = dyn_cast<LoadOp>(use.getOwner()))
          return isWhole(load);
        if (auto store = dyn_cast<StoreOp>(use.getOwner()))
          return isWhole(store) && use.getOperandNumber() == 0;
        return false;
      });
      if (whole)
        refs.insert(a);
    }
  });
  return refs;
}

/// Uses of `ref` directly in `block`, in order; failure when one lies
/// deeper (in a region of an op of the block).
FailureOr<SmallVector<Operation *>> usesIn(Block &block, Value ref) {
  SmallVector<Operation *> uses;
  for (Operation *user : ref.getUsers()) {
    Operation *top = block.findAncestorOpInBlock(*user);
    if (!top)
      continue;
    if (top != user)
      return failure();
    uses.push_back(user);
  }
  llvm::sort(uses, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return uses;
}

/// A loop that reads `ref` before writing it and writes it again carries
/// its value: loaded once before the loop, an iteration argument inside,
/// stored once after. Returns the loop that replaces `loop`, or null.
scf::ForOp carryThroughLoop(RewriterBase &rewriter, scf::ForOp loop, Value ref) {
  Block &body = *loop.getBody();
  FailureOr<SmallVector<Operation *>> uses = usesIn(body, ref);
  if (failed(uses) || uses->empty() || !isa<LoadOp>(uses->front()) ||
      !llvm::any_of(*uses, [](Operation *op) { return isa<StoreOp>(op); }))
    return {};
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  Value init = LoadOp::create(rewriter, loc, ref);
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) -> SmallVector<Value> {
        Value current = args.front();
        for (Operation *op : *uses) {
          if (auto load = dyn_cast<LoadOp>(op)) {
            rewriter.replaceOp(load, current);
          } else {
            current = cast<StoreOp>(op).getValue();
            rewriter.eraseOp(op);
          }
        }
        return {current};
      });
  if (failed(grown))
    return {};
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  rewriter.setInsertionPointAfter(newLoop);
  StoreOp::create(rewriter, loc, ref, newLoop.getResults().back());
  return newLoop;
}

/// Within each block: a whole load after a whole store of the same ref,
/// with no op between that reaches the ref from inside a region, reads
/// the stored value.
void forwardInBlocks(KernelOp kernel, const SetVector<Value> &refs, RewriterBase &rewriter) {
  kernel.walk([&](Block *block) {
    DenseMap<Value, Value> known;
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (auto store = dyn_cast<StoreOp>(op); store && refs.contains(store.getRef())) {
        known[store.getRef()] = store.getValue();
        continue;
      }
      if (auto load = dyn_cast<LoadOp>(op); load && refs.contains(load.getRef())) {
        if (Value v = known.lookup(load.getRef()))
          rewriter.replaceOp(load, v);
        continue;
      }
      if (op.getNumRegions() == 0)
        continue;
      // What a nested region may store is not known here.
      op.walk([&](StoreOp inner) { known.erase(inner.getRef()); });
    }
  });
}

} // namespace

void mlir::pallas::forwardWholeScratch(KernelOp kernel) {
  IRRewriter rewriter(kernel.getContext());
  SetVector<Value> refs = wholeScratch(kernel);
  if (refs.empty())
    return;
  // Innermost loops first, so an outer loop carries what an inner one does.
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    for (Value ref : refs)
      if (scf::ForOp grown = carryThroughLoop(rewriter, loop, ref))
        loop = grown;
  forwardInBlocks(kernel, refs, rewriter);
  // Stores nothing reads back any more.
  for (Value ref : refs)
    if (llvm::none_of(ref.getUsers(), [](Operation *op) { return isa<LoadOp>(op); }))
      for (Operation *user : llvm::make_early_inc_range(ref.getUsers()))
        rewriter.eraseOp(user);
}
