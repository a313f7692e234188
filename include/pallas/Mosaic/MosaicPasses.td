//===- MosaicPasses.td - the Mosaic TPU backend's passes ---*- tablegen -*-===//
#ifndef PALLAS_MOSAIC_PASSES
#define PALLAS_MOSAIC_PASSES

include "mlir/Pass/PassBase.td"

def ConvertPallasToMosaic : Pass<"convert-pallas-to-mosaic", "::mlir::ModuleOp"> {
  let summary = "lower blocked kernels to Mosaic (func + vector + tpu dialects)";
  let description = [{
    Works on kernels carrying launch attributes, *not* expanded: Mosaic keeps
    the blocked form and pipelines the blocks itself. Each kernel `@k`
    becomes the `func.func @k` JAX's Pallas TPU lowering builds: arguments
    are the grid indices (i32), the scalar-prefetch refs (SMEM memrefs), one
    VMEM memref per block (squeezed dims kept as 1) or a whole array in
    `#tpu.memory_space<any>`, and the scratch refs; attributes
    `dimension_semantics`, `iteration_bounds`, `scalar_prefetch`,
    `scratch_operands`, `tpu.core_type` and `window_params`, whose
    `transform_indices` name one `@transform_i` per windowed operand,
    returning its block indices. Tensors become vectors; accesses become
    `vector.load` / `tpu.vector_store`, dots `tpu.matmul`, reductions
    `vector.multi_reduction`, `run_scoped` a `tpu.region`, copies and
    semaphores the `tpu` DMA and semaphore ops. What Mosaic cannot express
    (gathers, masked accesses, atomics, ...) is an error naming the op.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::pallas::tpu::TPUDialect"];
}

def MosaicSerialize : Pass<"mosaic-serialize", "::mlir::ModuleOp"> {
  let summary = "rename ops to their stable_mosaic form, as JAX serialises Mosaic";
  let description = [{
    Every op inside the module becomes the unregistered
    `stable_mosaic.<dialect>.<op>` with the same operands, results, regions
    and all its attributes as a plain dictionary (inherent ones included,
    `operandSegmentSizes` explicit), and the module gets
    `stable_mosaic.version`. jaxlib's `mosaic-serde{serialize=false}` undoes
    it. The context must allow unregistered dialects to verify the result.
  }];
  let options = [Option<"version", "version", "int64_t", "11",
                        "stable_mosaic.version to stamp (the op forms are version 11's)">];
}

#endif // PALLAS_MOSAIC_PASSES
