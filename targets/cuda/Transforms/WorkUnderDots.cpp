//===- WorkUnderDots.cpp - exchanges run while wgmma dots are in flight ----===//
//
// A row broadcast over a wgmma accumulator layout (attention backward's
// lse over the transposed scores) is an exchange through shared memory:
// stores, a barrier of the warpgroup, loads. Standing between a dot's wait
// and the work on the dot's result, it runs with the tensor cores idle
// and delays that work. A broadcast after a `pallas_gpu.dot_wait` that
// needs nothing the wait gives (lse, from what the loop carries) moves
// above the wait with the pure ops it needs from there: it runs while the
// waited dots do. Only where those dots read rings or registers: the
// exchange may write the scratch area a dot's operand is read from.
// Attention backward on 8 warps, H200: D = 128 -2.0 %, causal -2 %, JAX's
// mha form -3 / -4 %.
//
// Its registers are then live across the wait with the waited results.
// Only where those take at most 64 a thread (two 128 x 64 accumulators
// over 8 warps): beside two 128 x 128 ones (D = 64 on 128-row blocks) the
// broadcast's registers spilled (104 -> 220 bytes) and the kernel ran 15 %
// slower.
//
// (Computing a dot's accumulator start for the next iteration under the
// previous one's last dots, and carrying it, measured no faster: D = 128
// +0.3 %, D = 64 +3 %.)
//
// Runs after pallas-issue-dots-together, on tile IR for sm_90a.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Layouts.h"
#include "Transforms/AsyncDots.h"
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Gpu/Gpu.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASWORKUNDERDOTS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// Registers a thread holds of the waited results beside which a broadcast
/// may stand.
constexpr int64_t kMaxWaitedRegisters = 64;

bool pure(Operation *op) { return op->getNumRegions() == 0 && isMemoryEffectFree(op); }

/// The ops of `block` after `after` that `root` needs (with it), in block
/// order; none if one of them is not pure or is `after`.
std::optional<SmallVector<Operation *>> sliceAfter(Operation *root, Operation *after) {
  Block *block = after->getBlock();
  llvm::SmallPtrSet<Operation *, 16> slice;
  SmallVector<Operation *> work{root};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (op == after || !pure(op))
      return std::nullopt;
    if (!slice.insert(op).second)
      continue;
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def == after)
        return std::nullopt;
      if (def && def->getBlock() == block && after->isBeforeInBlock(def))
        work.push_back(def);
    }
  }
  SmallVector<Operation *> ordered;
  for (Operation *op = after->getNextNode(); op; op = op->getNextNode())
    if (slice.contains(op))
      ordered.push_back(op);
  return ordered;
}

/// Elements of `type` a thread holds in its wgmma layout, if it has one.
std::optional<int64_t> perThread(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<cuda::MmaLayout> layout = tensor ? cuda::mmaLayoutOf(tensor) : std::nullopt;
  if (!layout || !isa_and_nonnull<pgpu::WgmmaEncodingAttr>(tensor.getEncoding()))
    return std::nullopt;
  return layout->perThread();
}

/// Broadcasts into the wgmma layout (of row statistics, or of the indices
/// a mask compares) after `wait` needing nothing it gives move above it.
/// Broadcasts into other layouts stay where they are.
void broadcastsAboveWait(pgpu::DotWaitOp wait) {
  int64_t waited = 0;
  for (Value v : wait.getValues()) {
    std::optional<int64_t> regs = perThread(v.getType());
    // (An exchange may write the scratch area a waited dot reads.)
    auto dot = v.getDefiningOp<tt::DotOp>();
    if (!regs || !dot || !cuda::readsNoScratch(dot))
      return;
    waited += *regs;
  }
  if (waited > kMaxWaitedRegisters)
    return;
  SmallVector<tt::BroadcastOp> broadcasts;
  for (Operation *op = wait->getNextNode(); op; op = op->getNextNode())
    if (auto broadcast = dyn_cast<tt::BroadcastOp>(op); broadcast && perThread(broadcast.getType()))
      broadcasts.push_back(broadcast);
  for (tt::BroadcastOp broadcast : broadcasts)
    if (std::optional<SmallVector<Operation *>> slice = sliceAfter(broadcast, wait))
      for (Operation *op : *slice)
        op->moveBefore(wait);
}

struct WorkUnderDotsPass : pallas::impl::PallasWorkUnderDotsBase<WorkUnderDotsPass> {
  void runOnOperation() override {
    SmallVector<pgpu::DotWaitOp> waits;
    getOperation().walk([&](pgpu::DotWaitOp wait) { waits.push_back(wait); });
    for (pgpu::DotWaitOp wait : waits)
      broadcastsAboveWait(wait);
  }
};

} // namespace
