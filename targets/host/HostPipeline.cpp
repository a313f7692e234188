//===- HostPipeline.cpp - kernel to LLVM dialect for the host -------------===//
#include "pallas/Host/HostPasses.h"

#include "pallas/Passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pallas;

/// After convert-pallas-to-host: upstream bufferization and conversions.
static const char *kHostLowering =
    "convert-pallas-to-host, canonicalize, cse,"
    "convert-elementwise-to-linalg, linalg-fuse-elementwise-ops, canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries=1 allow-return-allocs-from-loops=1 "
    "function-boundary-type-conversion=identity-layout-map},"
    // The deallocation helper takes dynamically shaped memrefs, which the
    // bare-pointer calling convention cannot pass: it is inlined.
    "buffer-deallocation-pipeline, inline, canonicalize, pallas-host-legalize,"
    "convert-linalg-to-loops, lower-affine, convert-scf-to-cf,"
    "expand-strided-metadata, lower-affine,"
    "math-extend-to-supported-types{target-type=f32},"
    "arith-expand{include-bf16=1},"
    "arith-emulate-unsupported-floats{source-types=bf16,f16,f8E4M3FN,f8E5M2 "
    "target-type=f32},"
    "arith-expand{include-bf16=1}, pallas-expand-f8-conversions,"
    // Math ops with an LLVM intrinsic first (ctpop, rsqrt as 1/sqrt, ...),
    // the rest as libm calls (the artifacts link -lm).
    "finalize-memref-to-llvm, convert-math-to-llvm{approximate-log1p=0}, convert-math-to-libm,"
    "convert-arith-to-llvm, convert-index-to-llvm, convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
    "reconcile-unrealized-casts, canonicalize";

void mlir::pallas::buildHostPipeline(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  // plgpu kernels run each warpgroup in order, as pallas ops; those of
  // several run them on threads of their own, barriers kept.
  pm.addPass(createConvertPlgpuToPallas({/*threads=*/true}));
  pm.addPass(createPallasExpandGrid());
  if (failed(parsePassPipeline(kHostLowering, pm)))
    llvm::report_fatal_error("the host pipeline does not parse");
}

void mlir::pallas::registerHostPipeline() {
  PassPipelineRegistration<>(
      "pallas-host-pipeline",
      "lower a kernel carrying its launch to the LLVM dialect for the host",
      [](OpPassManager &pm) { buildHostPipeline(pm); });
}
