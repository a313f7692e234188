//===- HostPasses.td - the host backend's passes -*- tablegen -*-===//
#ifndef PALLAS_HOST_PASSES
#define PALLAS_HOST_PASSES

include "mlir/Pass/PassBase.td"

def ConvertPallasToHost : Pass<"convert-pallas-to-host", "::mlir::ModuleOp"> {
  let summary = "lower expanded kernels to loops over memrefs for the CPU";
  let description = [{
    Each expanded kernel `@k` (after pallas-expand-grid) becomes
    `func.func @SYM_run_range(%begin: i64, %end: i64, %arrays: memref...)`,
    which runs programs `begin..end` of the grid's leading parallel axes and,
    inside each, the remaining axes in order. Scratch refs are allocated once
    per call, so they persist across sequential (`arbitrary`) axes. Blocks
    are read with bounds checks (out-of-bounds elements read 0 or `other`)
    and written under them (out-of-bounds writes are dropped); no access
    leaves its array. Tensor computations stay on tensors (tensor, linalg)
    for upstream bufferization. SYM is the launch's `symbol`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PallasHostLegalize : Pass<"pallas-host-legalize", "::mlir::ModuleOp"> {
  let summary = "rewrite what the host's LLVM lowering would leave to runtime libraries";
  let description = [{
    Host artifacts link only libc, libm and pthreads. Two upstream lowerings
    would call further libraries: finalize-memref-to-llvm turns a
    `memref.copy` with a non-contiguous side (a concatenate along an inner
    dim, say) into a call to MLIR's `memrefCopy`, so copies become
    `linalg.copy` (loops, under convert-linalg-to-loops); and `math.fma` on
    f16/bf16, which math-extend-to-supported-types leaves alone, would need
    compiler-rt's conversions, so it runs in f32 (exact products, one
    rounding of the sum, then the result's).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect"];
}

#endif // PALLAS_HOST_PASSES
