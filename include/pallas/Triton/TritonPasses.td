//===- TritonPasses.td - the triton backend's passes -*- tablegen -*-===//
#ifndef PALLAS_TRITON_PASSES
#define PALLAS_TRITON_PASSES

include "mlir/Pass/PassBase.td"

def PallasTritonLegalize : Pass<"pallas-triton-legalize", "::mlir::ModuleOp"> {
  let summary = "rewrite arith and math ops Triton's backend cannot lower";
  let description = [{
    Triton lowers only some `math` ops itself (exp, log, sin, sqrt, erf, fma,
    ...). The others (tanh, atan2, powf, log1p, trunc, the bit counts, ...)
    become `tt.extern_elementwise` calls of libdevice's `__nv_*` functions,
    which Triton's NVIDIA backend links, as JAX's Pallas-Triton lowering
    does. libdevice has f32 and f64 versions only: f16 and bf16 operands are
    extended to f32 and the result truncated; i8/i16 bit counts run on i32.
    Triton divides (divf, remf) only f32 and f64: f16 and bf16 divide in f32.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::pallas::tt::TTDialect"];
}

#endif // PALLAS_TRITON_PASSES
