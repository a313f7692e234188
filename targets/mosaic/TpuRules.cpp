//===- TpuRules.cpp - what a launch must satisfy to run on a TPU ----------===//
#include "pallas/Mosaic/TpuRules.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pallas;

static std::string dimsText(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

static bool isZeroMap(const SpecOperand &op) {
  if (!op.indexFn.empty())
    return false;
  return !op.indexMap ||
         llvm::all_of(op.indexMap.getResults(), [](AffineExpr e) {
           auto c = dyn_cast<AffineConstantExpr>(e);
           return c && c.getValue() == 0;
         });
}

FailureOr<TpuMemoryUse> mlir::pallas::checkTpuRules(KernelOp kernel,
                                                   const LaunchSpec &spec,
                                                   const TargetDescription &target) {
  const int64_t lanes = target.getInt("lanes", 128);
  const int64_t sublanes = target.getInt("sublanes", 8);
  bool ok = true;
  TpuMemoryUse use;
  std::string usage; // "x: 2 x 2097152, ..." for the budget message
  auto addUse = [&](int64_t &pool, StringRef what, int64_t copies, int64_t bytes) {
    pool += copies * bytes;
    if (&pool == &use.vmem)
      usage += (usage.empty() ? "" : ", ") + what.str() + ": " +
               (copies > 1 ? std::to_string(copies) + " x " : "") +
               std::to_string(bytes);
  };

  auto checkOperand = [&](const SpecOperand &op, unsigned argNo, bool prefetch) {
    std::string who = op.path + " ('" + op.name + "')";
    Location at = spec.loc(op.hasBlockShape ? op.path + ".block_shape" : op.path);
    if (dtypeBytes(op.elementType) > 4) {
      emitError(spec.loc(op.path + ".dtype"))
          << who << ": " << op.dtype << " arrays are not supported on TPU "
          << "(no 64-bit vector types)";
      ok = false;
      return;
    }
    if (op.shape.empty()) {
      emitError(spec.loc(op.path + ".shape"))
          << who << ": rank-0 arrays are not supported on TPU; use shape [1]";
      ok = false;
      return;
    }
    auto ref = dyn_cast<RefType>(kernel.getArgumentTypes()[argNo]);
    MemorySpace space = ref ? ref.getMemorySpace() : op.memorySpace;
    SmallVector<int64_t> block = op.blockDims();
    int64_t bytes = dtypeBytes(op.elementType);
    for (int64_t d : block)
      bytes *= d;
    bool whole = ArrayRef<int64_t>(block) == ArrayRef<int64_t>(op.shape) &&
                 llvm::all_of(op.blockShape, [](auto d) { return d.has_value(); });
    bool trivial = whole && isZeroMap(op);
    if (prefetch) {
      addUse(use.smem, op.name, 1, bytes);
      return;
    }
    if (space == MemorySpace::any || space == MemorySpace::gmem) {
      if (!trivial) {
        emitError(at) << who << ": a block in memory space '"
                      << stringifyMemorySpace(space) << "' must be the whole "
                      << "array " << dimsText(op.shape)
                      << " with an index map of zeros; it is reached through "
                         "async copies, not windowed";
        ok = false;
      }
      return;
    }
    if (spec.grid.empty() && !trivial) {
      emitError(at) << who << ": without a grid every block must be the "
                    << "whole array " << dimsText(op.shape)
                    << " at block index 0";
      ok = false;
      return;
    }
    if (space == MemorySpace::smem) {
      addUse(use.smem, op.name, trivial ? 1 : 2, bytes);
      if (trivial)
        return;
    } else {
      addUse(use.vmem, op.name, trivial || spec.grid.empty() ? 1 : 2, bytes);
    }
    size_t rank = block.size();
    int64_t bs0 = block[rank - 1], as0 = op.shape[rank - 1];
    if (rank >= 2) {
      int64_t bs1 = block[rank - 2], as1 = op.shape[rank - 2];
      if ((bs0 != as0 && bs0 % lanes) || (bs1 != as1 && bs1 % sublanes)) {
        emitError(at) << who << ": block shape " << dimsText(block)
                      << " of array " << dimsText(op.shape)
                      << ": on " << target.name
                      << " the last two block dims must be divisible by ("
                      << sublanes << ", " << lanes
                      << ") or equal to the array's dims (squeezed dims count "
                         "as 1)";
        ok = false;
      }
      return;
    }
    unsigned bits = op.elementType.isInteger(1)
                        ? 32
                        : op.elementType.getIntOrFloatBitWidth();
    int64_t minTiling = lanes * (32 / std::max(8u, bits));
    if (bs0 != as0 && bs0 % (lanes * sublanes) &&
        !(bs0 >= minTiling && llvm::isPowerOf2_64(bs0))) {
      emitError(at) << who << ": rank-1 block [" << bs0 << "] of array ["
                    << as0 << "]: on " << target.name
                    << " a rank-1 block must equal the array, be a multiple of "
                    << lanes * sublanes << ", or be a power of two of at least "
                    << minTiling;
      ok = false;
    }
  };

  unsigned arg = 0;
  for (auto [i, op] : llvm::enumerate(spec.inputs))
    checkOperand(op, arg++, static_cast<int64_t>(i) < spec.numScalarPrefetch);
  for (const SpecOperand &op : spec.outputs)
    checkOperand(op, arg++, false);
  for (auto [i, s] : llvm::enumerate(spec.scratch)) {
    if (s.isSemaphore())
      continue;
    int64_t bytes = dtypeBytes(s.elementType);
    for (int64_t d : s.shape)
      bytes *= d;
    std::string name = "scratch[" + std::to_string(i) + "]";
    addUse(s.memorySpace == MemorySpace::smem ? use.smem : use.vmem, name, 1, bytes);
  }
  kernel.walk([&](RunScopedOp scoped) {
    for (BlockArgument a : scoped.getBody().getArguments())
      if (auto ref = dyn_cast<RefType>(a.getType());
          ref && !isa<SemaphoreType, DMASemaphoreType>(ref.getElementType())) {
        int64_t bytes = dtypeBytes(ref.getElementType()) * ref.getNumElements();
        addUse(ref.getMemorySpace() == MemorySpace::smem ? use.smem : use.vmem,
               "run_scoped", 1, bytes);
      }
  });
  if (!ok)
    return failure();

  const int64_t vmemBytes = target.getInt("vmem_bytes");
  use.vmemLimit = target.getInt("vmem_default_limit_bytes", vmemBytes);
  if (spec.vmemLimitBytes) {
    if (*spec.vmemLimitBytes > vmemBytes) {
      emitError(spec.loc("compiler_params.vmem_limit_bytes"))
          << "vmem_limit_bytes " << *spec.vmemLimitBytes << " exceeds the "
          << vmemBytes << " bytes of VMEM of " << target.name;
      return failure();
    }
    use.vmemLimit = *spec.vmemLimitBytes;
  }
  if (use.vmem > use.vmemLimit) {
    InFlightDiagnostic d =
        emitError(spec.loc(spec.vmemLimitBytes ? "compiler_params.vmem_limit_bytes"
                                               : "kernel"));
    d << "the kernel needs " << use.vmem << " bytes of VMEM (" << usage
      << "), more than the limit of " << use.vmemLimit << " bytes";
    if (spec.vmemLimitBytes || use.vmem > vmemBytes)
      d << " (" << target.name << " has " << vmemBytes << " bytes of VMEM)";
    else
      d << "; raise compiler_params.vmem_limit_bytes (up to " << vmemBytes
        << " on " << target.name << ") or use smaller blocks";
    return failure();
  }
  const int64_t smemBytes = target.getInt("smem_bytes");
  if (smemBytes && use.smem > smemBytes) {
    emitError(spec.loc("kernel"))
        << "the kernel needs " << use.smem << " bytes of SMEM (scalar "
        << "prefetch, SMEM blocks and scratch), more than the " << smemBytes
        << " bytes of " << target.name;
    return failure();
  }
  return use;
}
