//===- TilePasses.td - passes that produce tile IR -*- tablegen -*-===//
#ifndef PALLAS_TILE_PASSES
#define PALLAS_TILE_PASSES

include "mlir/Pass/PassBase.td"

def ConvertPallasToTile : Pass<"convert-pallas-to-tile", "::mlir::ModuleOp"> {
  let summary = "lower expanded kernels to tile IR (Triton's tt dialect)";
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

#endif // PALLAS_TILE_PASSES
