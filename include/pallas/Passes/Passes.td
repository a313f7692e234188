//===- Passes.td - target-independent pallas passes --------*- tablegen -*-===//
#ifndef PALLAS_PASSES
#define PALLAS_PASSES

include "mlir/Pass/PassBase.td"

def PallasExpandGrid : Pass<"pallas-expand-grid", "::mlir::ModuleOp"> {
  let summary = "turn block refs into views of whole arrays";
  let description = [{
    Works on kernels carrying launch attributes (`pallas.grid` on the kernel;
    `pallas.role`, `pallas.shape`, `pallas.block`, `pallas.index_map` or
    `pallas.index_fn` on each argument; see LaunchAttributes.h). Each block
    argument becomes the whole array, and the kernel body starts with one
    `pallas.block` view per block at `index_map(program ids)`; squeezed dims
    are dropped from the view. `@fn` index maps become calls, inlined.
    `pallas.num_programs` folds to the grid size. Under vmap
    (`pallas.batch_axes`), program ids of the kernel move past the batch axes.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def PallasSplitPrograms : Pass<"pallas-split-programs", "::mlir::ModuleOp"> {
  let summary = "split programs whose blocks are too big over more programs";
  let description = [{
    Runs on kernels with launch attributes, before pallas-expand-grid. Finds
    the block dims that the kernel never reduces over nor mixes with other
    dims: dims tied together through elementwise ops, whole-ref loads and
    stores, the M/N dims of dots, broadcasts and structured control flow.
    Each such dim larger than `max-tile` is cut into pieces of `max-tile`,
    one per program of a new parallel grid axis placed after the leading
    parallel axes: blocks, scratch and tensors shrink, index maps pick the
    piece. Dims that feed a reduction, a dot's K, a reshape, a transpose or a
    partial access are left alone.
  }];
  let options = [Option<"maxTile", "max-tile", "int64_t", "64",
                        "largest tile kept along a split dim">,
                 Option<"maxElements", "max-elements", "int64_t", "0",
                        "output blocks of at most this many elements are "
                        "left whole (0: split by max-tile alone)">];
}

def PallasStreamDotK : Pass<"pallas-stream-dot-k", "::mlir::ModuleOp"> {
  let summary = "turn a dot of two whole blocks into a loop over K chunks";
  let description = [{
    `dot(load a[...], load b[...] [, acc])` with a contracting dim longer
    than `k-chunk` becomes an scf.for over K chunks that loads
    `a[:, ds(k, C)]` and `b[ds(k, C), :]` and accumulates, so that no more
    than a chunk of either operand is live at once.
  }];
  let options = [Option<"kChunk", "k-chunk", "int64_t", "64",
                        "contracting-dim chunk">];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

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
    for upstream bufferization. SYM is the kernel's `pallas.symbol`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
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
    the op. The launch grid goes into the kernel's `pallas.triton_grid`.
  }];
  let options = [Option<"tritonDotLimits", "triton-dot-limits", "bool", "true",
                         "refuse dots below Triton's minimum dot size (16x16 operands; "
                         "8-bit operands contracting over 32); off where pallasc lowers "
                         "the Triton IR itself (CUDA targets)">];
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

def PallasPipeline : Pass<"pallas-pipeline", "::mlir::ModuleOp"> {
  let summary = "issue a loop's global loads ahead of their use (tile IR)";
  let description = [{
    Runs on tile IR for CUDA targets, after pallas-assign-layouts. In
    innermost scf.for loops that write no memory (no stores or atomics),
    tensor loads whose addresses and masks depend only on the induction
    variable and loop invariants (through pure ops) are issued ahead:

    * A 2-D block used only as operand A or B of a tensor-core dot (result
      in an mma encoding) whose masked-off elements read as zero goes
      through a `pallas_gpu` ring of num-stages shared-memory buffers:
      asynchronous copies run num-stages - 1 iterations ahead, the dot
      reads the buffer (`pallas_gpu.ring_read`). Fewer stages are used when
      the rings would take more than 3/4 of `shared-bytes`; below two,
      none.
    * Other loads are issued one iteration ahead into registers, carried
      as loop values (the last iteration loads a block of the iteration
      space again, index min(k + step, ub - 1), its value dropped), unless
      two blocks in flight and the carried values would need more than 200
      registers per thread (estimated at 32 bits per element).

    num-stages below 2 leaves loops as they are.
  }];
  let options = [Option<"numStages", "num-stages", "int64_t", "2",
                        "pipeline depth (shared-memory buffers per dot operand)">,
                 Option<"numWarps", "num-warps", "int64_t", "4",
                        "warps per CTA (to estimate registers per thread)">,
                 Option<"sharedBytes", "shared-bytes", "int64_t", "49152",
                        "shared memory a CTA may use, in bytes">];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::pallas::pgpu::PallasGpuDialect"];
}

def PallasAssignLayouts : Pass<"pallas-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "choose how tile IR tensors are spread over a CTA's threads";
  let description = [{
    Runs on tile IR (after convert-pallas-to-triton) for CUDA targets.
    Tensors default to the blocked layout. Dots that tensor cores can run
    (bf16/f16 operands, or f32 at TF32 precision, with an f32 result whose
    shape tiles over the warps in 16x8 pieces) get the `"pallas.mma"`
    encoding on their result and accumulator; a loop that carries the
    accumulator carries that layout. `tensor.cast` marks every change of
    layout; a result leaving the mma layout only to be truncated
    (`arith.truncf`) is truncated first, in the mma layout.
  }];
  let options = [Option<"numWarps", "num-warps", "int64_t", "4",
                        "warps per CTA">,
                 Option<"wgmma", "wgmma", "bool", "false",
                        "use Hopper's warpgroup MMA (sm_90a) where it fits: "
                        "the \"pallas.wgmma\" encoding">];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def ConvertPallasToNVVM : Pass<"convert-pallas-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "lower tile IR (tt) to per-thread code in a gpu.module";
  let description = [{
    Runs after convert-pallas-to-triton. Each `tt.func` becomes a
    `gpu.func` kernel (one program = one CTA of 32 * num-warps threads) in
    the `gpu.module @pallas_kernels`, taking one global pointer per array.
    Tensors are spread over the threads by the blocked layout (chunks of up
    to four consecutive elements per thread, round robin) and become one
    vector per thread. Loads and stores of contiguous, aligned, unmasked
    chunks are single vector accesses (checked at run time); others are
    predicated per element. Broadcast, transpose, join, scan and dot read
    their operands from dynamic shared memory; reductions fold per thread,
    then across lanes with shuffles and across warps through shared memory.
    f32 `math.exp` becomes `ex2.approx` of x * log2(e) and f32 division
    `div.approx` (both within 2 ulp), as fast device code. The shared memory
    a kernel needs goes into `pallas.shared_bytes`.
  }];
  let options = [Option<"numWarps", "num-warps", "int64_t", "4",
                        "warps per CTA (threads = 32 * num-warps)">];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // PALLAS_PASSES
