//===- ProgramLimits.cpp - refuse programs a CTA's registers cannot hold --===//
//
// A CUDA program keeps each tile IR tensor in its threads' registers
// (num_warps * 32 threads, each holding a share). The lowering unrolls a
// thread's share element by element, and LLVM and ptxas take time growing
// faster than the unrolled code: 2048 x 2048 f32 over 128 threads (32768
// elements each) took minutes, 60 elementwise ops on 512-element shares
// 16 s. Programs whose blocks could be split (pallas-split-programs)
// already are; what is left this large would spill nearly all of it. So
// such programs are refused here, before any expensive lowering, with an
// error at the user's op (one tensor too large) or kernel (too many). The
// kernel-wide share bounds the compile: 128x128 flash attention on 8 warps
// holds 4,241 elements per thread in all (1.3 s), on 4 warps 8,465 (7 s,
// spilling), D = 256 attention on 8 warps about 11,800 (0.8 s), JAX's
// causal attention backward on 32-row blocks, two programs merged into
// five loops, 15,739 (1.7 s, no spills); a fuzzed 4-warp variant at
// 13,201 took 10.5 s spilling 8 KB (it now runs on 8 warps).
//
//===----------------------------------------------------------------------===//
#include "pallas/Cuda/CudaPasses.h"
#include "pallas/Spec/LaunchAttributes.h"
#include "pallas/Tile/Tile.h"

namespace mlir::pallas {
#define GEN_PASS_DEF_PALLASPROGRAMLIMITS
#include "pallas/Cuda/CudaPasses.h.inc"
} // namespace mlir::pallas

using namespace mlir;
using namespace mlir::pallas;

namespace {

/// "2048x2048xf32".
std::string shapeText(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(type.getShape(), os, "x");
  os << "x" << type.getElementType();
  return text;
}

struct ProgramLimitsPass : pallas::impl::PallasProgramLimitsBase<ProgramLimitsPass> {
  using PallasProgramLimitsBase::PallasProgramLimitsBase;

  /// Checks one kernel function; false after reporting an error.
  bool check(tt::FuncOp func, LaunchAttr launch) {
    int64_t warps = launch.getNumWarps(), threads = 32 * warps;
    int64_t perTensor = maxElementsPerThread, perKernel = maxKernelElementsPerThread;
    int64_t total = 0;
    WalkResult r = func.walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || !type.hasStaticShape())
          continue;
        int64_t share = (type.getNumElements() + threads - 1) / threads;
        total += share;
        if (share > perTensor) {
          op->emitError() << "a " << shapeText(type)
                          << " block is too large for one CUDA program: " << share
                          << " elements per thread with num_warps = " << warps << " (at most "
                          << perTensor << "); use a smaller block_shape or more warps";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return false;
    if (total > perKernel) {
      func.emitError() << "the kernel's blocks are too large for one CUDA program: its tensors "
                          "hold "
                       << total << " elements per thread in all with num_warps = " << warps
                       << " (at most " << perKernel
                       << "); use smaller block_shapes or more warps";
      return false;
    }
    return true;
  }

  void runOnOperation() override {
    getOperation().walk([&](tt::FuncOp func) {
      if (LaunchAttr launch = getLaunch(func); launch && !check(func, launch))
        signalPassFailure();
    });
  }
};

} // namespace
