//===- Passes.td - target-independent pallas passes -*- tablegen -*-===//
#ifndef PALLAS_PASSES
#define PALLAS_PASSES

include "mlir/Pass/PassBase.td"

def PallasExpandGrid : Pass<"pallas-expand-grid", "::mlir::ModuleOp"> {
  let summary = "turn block refs into views of whole arrays";
  let description = [{
    Works on kernels carrying the launch (`pallas.launch` on the kernel,
    `pallas.block_spec` on each argument; PallasAttrs.td). Each block
    argument becomes the whole array, and the kernel body starts with one
    `pallas.block` view per block at `index_map(program ids)`; squeezed dims
    are dropped from the view. `@fn` index maps become calls, inlined.
    `pallas.num_programs` folds to the grid size. Under vmap (the launch's
    `batch_axes`), program ids of the kernel move past the batch axes. The
    launch is then marked `expanded`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def ConvertPlgpuToPallas : Pass<"convert-plgpu-to-pallas", "::mlir::ModuleOp"> {
  let summary = "run a one-warpgroup plgpu kernel in program order, with pallas ops";
  let description = [{
    Pallas:MGPU's semantics when each block's one Pallas thread runs its ops
    in order and every copy completes when it is issued (as Pallas's
    interpret mode runs them): copy_gmem_to_smem and copy_smem_to_gmem
    become a load of the source and a store (or a combining store) of the
    destination, wgmma a pallas.dot accumulating into the accumulator ref,
    axis_index the program id along its axis (a cluster axis: the block's
    place in its cluster), barrier_test `true`, layout_cast its input; the
    barrier, commit, wait and register ops have nothing left to do. Kernels
    of several threads (num_threads > 1) are refused: their threads hand
    data to each other through barriers, which one thread in order cannot
    honour. With `threads`, they are kept for a lowering that runs each
    Pallas thread on a thread of its own: copies complete at issue and
    arrive on their barrier, and the barrier ops and the thread's
    axis_index stay.
  }];
  let options = [Option<"threads", "threads", "bool", "false",
                        "keep kernels of several threads, with their barriers">];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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
    partial access are left alone. With `unbatch-dots`, a 3-D dot's batch
    dim is cut into pieces of 1 and squeezed away.
  }];
  let options = [Option<"maxTile", "max-tile", "int64_t", "64",
                        "largest tile kept along a split dim">,
                 Option<"maxElements", "max-elements", "int64_t", "0",
                        "output blocks of at most this many elements are "
                        "left whole (0: split by max-tile alone)">,
                 Option<"keepSequentialDots", "keep-sequential-dots", "bool", "false",
                        "leave whole the programs of a K loop as written (a "
                        "sequential grid axis accumulating dots, or a dot of "
                        "whole blocks over K > 128) whose output blocks fit "
                        "128 elements per thread: the CUDA pipeline stages "
                        "them as a tiled GEMM's in-kernel loop">,
                 Option<"unbatchDots", "unbatch-dots", "bool", "false",
                        "split a dot's leading batch dim over programs, one "
                        "slice each, and drop it (squeezed block dims): the "
                        "dots become 2-D, which tensor cores run">];
}

def PallasMergePrograms : Pass<"pallas-merge-programs", "::mlir::ModuleOp"> {
  let summary = "run pairs of a GEMM's programs as one program of twice the tile";
  let description = [{
    Runs on kernels with launch attributes, before pallas-expand-grid, for
    the sm_90a pipeline with a producer warpgroup: a GEMM whose programs
    each compute a 128 x 128 f32 tile from 16- or 8-bit operands runs
    under-occupied there (one CTA per SM, small wgmma). Two programs
    neighbouring along a parallel grid axis become one whose blocks are
    twice as wide along the dot's N dim (128 x 256: the tile the tuned
    GEMMs run), when that is exactly what they computed: the N dim travels
    through the kernel unmixed (pallas-split-programs' analysis, slicing
    loads included: only their whole dims follow), every block along it is
    indexed by that grid axis alone and no other block by it, the axis's
    extent is even, and the kernel neither reads its program id nor has
    side effects. Index maps stay; blocks, scratch and tensors double along
    the class, and the axis's extent halves.
  }];
  let options = [Option<"warps", "warps", "int64_t", "8",
                        "the num_warps a kernel must have to be merged">];
}

def PallasTwoWarpgroups : Pass<"pallas-two-warpgroups", "::mlir::ModuleOp"> {
  let summary = "run 4-warp programs too big for one warpgroup's registers on two";
  let description = [{
    Runs on kernels with launch attributes, before convert-plgpu-to-pallas,
    for the CUDA pipelines: num_warps is the program's thread count, not
    part of what it computes; on sm_90a a program of 4 warps is one
    consumer warpgroup. Where a loop of such a program would hold more f32
    values a thread than its registers (`max-registers`: the carried
    values and the loop's two largest f32 tensors, as
    pallas-merge-iterations counts them, a dot added into a carried value
    counted as accumulating in place) and every dot's rows (M) are a
    multiple of 128, the program runs on 8 warps: on sm_90a each
    warpgroup takes half the rows, whole m64 blocks, and the blocks they
    both read are loaded once. JAX's mha forward at D <= 64 (128 x 128
    blocks on 4 warps: the scores alone are 128 values a thread) is such a
    program. Not plgpu kernels (their warpgroups are the kernel's own).
  }];
  let options = [Option<"maxRegisters", "max-registers", "int64_t", "240",
                        "f32 elements a thread of one warpgroup may hold in a loop">];
}

def PallasMergeRowPrograms : Pass<"pallas-merge-row-programs", "::mlir::ModuleOp"> {
  let summary = "run pairs of programs that each walk their own rows as one over twice the rows";
  let description = [{
    Runs on kernels with launch attributes, before pallas-expand-grid, for
    the sm_90a pipeline: a dot of 32 rows on one warpgroup fills half a
    wgmma m64 block. A kernel whose programs along a parallel grid axis
    each work on their own `rows` rows - reading them as `ds(p * rows,
    rows)` of whole refs (p the axis's program id, read only to make such
    offsets), writing them as the axis's blocks, and turning them into
    positions (iota plus p * rows) - and never reduce, contract or
    otherwise mix those rows, computes the same as half as many programs
    of twice the rows: every tensor holding them doubles along them, the
    offsets step by 2 rows, the blocks the axis picks double, the axis's
    extent halves. JAX's flash attention backward with its default 32-row
    blocks is such a kernel. With `bounded-loops` (on by default), a loop
    whose bounds are computed from the program id (a causal scan) runs
    the trips of both programs in order: the trips both run, from an even
    trip to an even trip, as written; the trips before and after, where
    one program may have none, with each carried value kept in that
    program's rows (a select; where only the lower bound varies and the
    carried values start as constants, the leading trips unguarded and
    the constants put back after them; not where the loop writes or
    carries a value that does not hold the rows in one dim). JAX's causal
    attention backward on 32-row blocks is such a kernel. Not where the
    kernel has side effects other than loads and stores, reads a scratch
    ref or the axis's program count, or a tensor of twice the rows would
    hold more than 128 elements a thread.
  }];
  let options = [Option<"warps", "warps", "int64_t", "4",
                        "the num_warps a kernel must have">,
                 Option<"rows", "rows", "int64_t", "32",
                        "the rows a program must walk">,
                 Option<"boundedLoops", "bounded-loops", "bool", "true",
                        "also merge kernels with loops whose bounds come from "
                        "the program id">];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def PallasMergeIterations : Pass<"pallas-merge-iterations", "::mlir::ModuleOp"> {
  let summary = "run two trips of a loop over row blocks as one over twice the rows";
  let description = [{
    Runs on kernels with launch attributes, before pallas-expand-grid, for
    the sm_90a pipeline: a dot of 64 rows on two warpgroups splits its
    columns (small wgmma), one of 128 gives each warpgroup an m64 block.
    An scf.for of step 1 whose trip i reads, stores or atomically adds
    rows [i B, (i + 1) B) of refs (`ds(i * B, B)`, B the CTA's warpgroups
    times 32), makes positions from them (iota plus i * B), and carries
    only sums of dots contracting those rows, runs half the trips over 2B
    rows when its bounds are even: every tensor holding the step's rows
    doubles along them. Not where the rows are reduced otherwise (a row
    max, a sum), a ref is both read and written in the loop, a write is
    not of the step's rows, nothing the loop does is a dot of the step's
    rows (M), or the carried values and the two largest f32 tensors of
    twice the rows would pass `max-registers` a thread. With `columns`, a
    loop whose dots hold the step's rows only as N merges too.
  }];
  let options = [Option<"warps", "warps", "int64_t", "8",
                        "the num_warps a kernel must have">,
                 Option<"maxRegisters", "max-registers", "int64_t", "192",
                        "f32 elements a thread may hold: the carried values and "
                        "the two largest tensors of the merged step">,
                 Option<"columns", "columns", "bool", "false",
                        "also merge where the step's rows are only dots' N dims "
                        "(half as many trips, each a wgmma twice as wide)">];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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

def PallasSkipMaskedOutLoops : Pass<"pallas-skip-masked-out-loops", "::mlir::ModuleOp"> {
  let summary = "a program whose every store is masked off runs its loops for no trips";
  let description = [{
    Where each of a kernel's writes is a store in its body whose mask is an
    intersection of comparisons of an index (iota plus a scalar) with
    scalars, all known before a loop of the body, the loop runs only if
    some store keeps an index of its tile: its upper bound becomes its
    lower bound otherwise. Grouped GEMMs' padding entries (program ids past
    the last row tile, whose rows [offsets[g], offsets[g + 1]) are empty)
    then skip their K loops. Nothing changes where a kernel writes in any
    other way (unmasked stores, stores in loops or branches, atomics, DMA).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def PallasProgramOrder : Pass<"pallas-program-order", "::mlir::ModuleOp"> {
  let summary = "launch programs that read the same input blocks side by side";
  let description = [{
    Runs on kernels with launch attributes, before pallas-expand-grid, for
    GPU targets: programs run in launch order, a few hundred at a time, and
    those running together share the L2 cache. An input block whose index
    map ignores a grid axis is read again by every program along that axis;
    the axis along which the most input bytes stay the same should vary
    fastest. Flash attention's (head, query block) grid reads each head's K
    and V (megabytes) from every query block: query blocks fastest keeps one
    head's K and V in L2 for all of them, heads fastest streams every head's
    K and V from memory about twice. A GEMM's (i, j) grid shares A's row
    blocks along j and B's column blocks along i: both matter, and the
    programs go in groups of `group` along the first (ProgramGrid.h).
    When programs along the best axis run loops of different lengths
    (causal attention: a loop bound comes from its program id), a few
    programs of the next axis go side by side instead, each running
    through the whole best axis (counted down by
    pallas-heavy-programs-first on CUDA): groups of about 128 programs, a
    wave, keep their blocks in L2 and start their longest programs first.

    Sets the launch's `program_order` (and `program_group`) when that order
    differs from the grid's own; leaves kernels with one parallel axis, more
    than three, or more than 2^31 - 1 programs alone. An index function
    (`index_fn`, a scalar-prefetch map) counts for the grid indices it
    never uses: what it reads from its tables is unknown.
  }];
  let options = [Option<"group", "group", "int64_t", "8",
                        "programs per group along the fastest axis when two "
                        "axes share blocks (0: no groups)">];
}

def PallasExpandF8Conversions : Pass<"pallas-expand-f8-conversions"> {
  let summary = "f8 extf/truncf as integer arithmetic on the bits";
  let description = [{
    For backends that lower through LLVM, which has no 8-bit float types:
    `arith.extf` from f8E4M3FN/f8E5M2 and `arith.truncf` to them become
    integer and f32 arithmetic with ml_dtypes' semantics (round to nearest
    even, subnormals kept, f8E4M3FN overflow to NaN, f8E5M2 to infinity).
    Values stay f8-typed at the edges (`arith.bitcast` to and from i8).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // PALLAS_PASSES
