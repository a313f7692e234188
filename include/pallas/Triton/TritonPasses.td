//===- TritonPasses.td - the triton backend's passes -*- tablegen -*-===//
#ifndef PALLAS_TRITON_PASSES
#define PALLAS_TRITON_PASSES

include "mlir/Pass/PassBase.td"

def ConvertPallasToTriton : Pass<"convert-pallas-to-triton", "::mlir::ModuleOp"> {
  let summary = "lower expanded kernels to Triton IR (tt dialect)";
  let description = [{
    Each expanded kernel becomes one `tt.func public` taking a `!tt.ptr` per
    array (spec order, `tt.divisibility = 16`). The leading parallel grid
    axes map to `tt.get_program_id x/y/z` (folded into x, and recovered with
    div/rem, when there are more than three or they exceed Triton's limits);
    sequential (`arbitrary`) axes become loops inside the program, with
    scratch refs carried through them as loop values. Accesses become
    tensors of pointers with masks that keep every access inside its array.
    Triton needs power-of-two tensor sizes: other sizes are an error naming
    the op. The `tt.func` keeps the kernel's `pallas.launch`; its program
    grid is `programGridOf` (ProgramGrid.h). A launch with a program order
    runs one linear program id x, from which the axes' ids are derived;
    with `logical-program-ids`, `tt.get_program_id x/y/z` stay one per axis
    instead, for a backend that derives them itself (CUDA targets).
  }];
  let options = [Option<"tritonDotLimits", "triton-dot-limits", "bool", "true",
                         "refuse dots below Triton's minimum dot size (16x16 operands; "
                         "8-bit operands contracting over 32); off where pallasc lowers "
                         "the Triton IR itself (CUDA targets)">,
                 Option<"logicalProgramIds", "logical-program-ids", "bool", "false",
                         "keep one program id per axis under a program order (the "
                         "backend derives them from the linear block index)">];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::pallas::tt::TTDialect"];
}

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
