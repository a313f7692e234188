//===- CudaPasses.td - the CUDA backend's passes -*- tablegen -*-===//
#ifndef PALLAS_CUDA_PASSES
#define PALLAS_CUDA_PASSES

include "mlir/Pass/PassBase.td"

def PallasProgramLimits : Pass<"pallas-program-limits", "::mlir::ModuleOp"> {
  let summary = "refuse blocks too large for one CUDA program's registers";
  let description = [{
    Runs on tile IR for CUDA targets, right after convert-pallas-to-tile
    (and pallas-split-programs, which splits what it can). A tensor whose
    share per thread (elements / (32 * num_warps) of the function's
    `#pallas.launch`) exceeds `max-elements-per-thread` is an error at the
    op that makes it, and a function whose tensors' shares add up to more
    than `max-kernel-elements-per-thread` an error at the kernel: the
    lowering unrolls each thread's share, so such programs would take
    minutes to compile and spill nearly all of it. The largest kernels in
    the repository hold 256 (one tensor) and about 15700 (JAX's causal
    attention backward on 32-row blocks, two programs merged: five loops,
    1.7 s to compile for sm_90a, no spills).
  }];
  let options = [
    Option<"maxElementsPerThread", "max-elements-per-thread", "int64_t", /*default=*/"512",
           "the largest share of one tensor a thread may hold">,
    Option<"maxKernelElementsPerThread", "max-kernel-elements-per-thread", "int64_t",
           /*default=*/"16384", "the largest share of all a kernel's tensors a thread may hold">,
  ];
}

def ConvertPlgpuToTile : Pass<"convert-plgpu-to-tile", "::mlir::ModuleOp"> {
  let summary = "Pallas:MGPU kernels to tile IR, keeping the kernel's own schedule (sm_90a)";
  let description = [{
    An expanded plgpu kernel of one Pallas thread becomes a `tt.func` whose
    shared-memory buffers are `pallas_gpu` rings, barriers mbarriers, copies
    TMA copies that signal them (each with its tensor map), and wgmma dots
    issued without waiting, taken back at the kernel's `wgmma_wait`: every
    copy, wait and commit stays where the kernel has it. The rest lowers as
    convert-pallas-to-tile lowers it. What it cannot lower yet (several
    Pallas threads, clusters, ...) is a located error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::pallas::tt::TTDialect",
                           "::mlir::pallas::pgpu::PallasGpuDialect"];
}

def PallasStageLoads : Pass<"pallas-stage-loads", "::mlir::ModuleOp"> {
  let summary = "issue a loop's global loads ahead of their use (tile IR)";
  let description = [{
    Runs on tile IR for CUDA targets, after pallas-assign-layouts. In
    innermost scf.for loops that write no memory (no stores or atomics),
    tensor loads whose addresses and masks depend only on the induction
    variable and loop invariants (through pure ops) are issued ahead:

    * A 2-D block used only as operand A or B of a tensor-core dot (result
      in an mma encoding) whose masked-off elements read as zero goes
      through a `pallas_gpu` ring of num_stages shared-memory buffers
      (the function's `#pallas.launch`): asynchronous copies run
      num_stages - 1 iterations ahead, the dot
      reads the buffer (`pallas_gpu.ring_read`). Fewer stages are used when
      the rings would take more than 3/4 of `shared-bytes`; below two,
      none. A loop that mostly loads (its dots do fewer than 32 flops a
      byte of the blocks: decode attention's 16-row dots), whose rings
      would leave room for one CTA per SM where one buffer each leaves
      room for two, gets rings of one buffer instead, each refilled with
      the next iteration's block as soon as the dot reading it is done:
      more CTAs' copies in flight on an SM.
    * Other loads are issued one iteration ahead into registers, carried
      as loop values (the last iteration loads a block of the iteration
      space again, index min(k + step, ub - 1), its value dropped), unless
      two blocks in flight and the carried values would need more than 200
      registers per thread (estimated at 32 bits per element).

    In loops whose dots take warpgroup turns (pallas-warpgroup-turns),
    the copies into a slot arrive on that slot's
    `filled` mbarrier, each thread waits for it before reading the slot and
    arrives on the slot's `released` mbarrier once the dot reading it is
    done (after its `pallas_gpu.dot_wait` when pallas-async-dots made it
    asynchronous), and refills wait for the release: no CTA-wide barrier
    per iteration, so warpgroups need not run in lockstep. A refill goes
    right after the dot reading the ring or, for an asynchronous dot,
    before it.

    With `tma` (sm_90a), such a loop's blocks that are unmasked tiles of
    whole contiguous rows of one array, a constant step apart and laid out
    with the 128-byte swizzle, are copied by `pallas_gpu.tma_copy`
    instead: one thread issues the tile's bulk tensor copies, which
    complete the slot's filled barrier themselves; the function lists the
    tensor maps they use (`pallas_gpu.tensor_maps`). With `producer` as
    well, a warpgroup of its own issues them (`pallas_gpu.produce`, at the
    kernel's start, recomputing the addresses) and the loop's threads only
    wait for fills and release slots, where the loop lies in the kernel's
    entry block, its addresses need nothing with effects, and two CTAs of
    the kernel would not fit an SM otherwise (the producer costs that
    occupancy; such loops keep cp.async).

    The loops it pipelines (and a producer's fill loop) are marked
    `pallas_gpu.pipelined`: the CUDA backend asks that they not be
    unrolled.

    num_stages below 2 leaves loops as they are; num_warps gives the
    threads to estimate registers per thread.
  }];
  let options = [Option<"sharedBytes", "shared-bytes", "int64_t", "49152",
                        "shared memory a CTA may use, in bytes">,
                 Option<"tma", "tma", "bool", "false",
                        "copy eligible blocks of mbarrier rings with the TMA (sm_90a)">,
                 Option<"producer", "producer", "bool", "false",
                        "with tma: a producer warpgroup issues the copies (pallas_gpu.produce)">];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::pallas::pgpu::PallasGpuDialect"];
}

def PallasTmaStores : Pass<"pallas-tma-stores", "::mlir::ModuleOp"> {
  let summary = "accumulator tiles stored through the TMA (sm_90a, tile IR)";
  let description = [{
    Runs on tile IR after pallas-assign-layouts. A `tt.store` of a tensor-core
    accumulator (the value a `tensor.cast` takes from the accumulator's layout
    to the blocked one) to an unmasked tile of whole contiguous rows of an
    array parameter, a constant step apart (the views `pallas-stage-loads`
    copies by the TMA; a mask that only keeps the tile inside a symbolic
    array counts as none: the TMA clips at the array's bounds), 16- or
    32-bit elements and rows a multiple of 128 bytes, becomes
    `pallas_gpu.tma_store` of the accumulator: the threads write it to
    shared memory in the 128-byte swizzle and one thread stores the tile
    with bulk tensor copies, instead of every thread reading its blocked
    elements back and storing them.
  }];
  let dependentDialects = ["::mlir::pallas::pgpu::PallasGpuDialect"];
}

def PallasClusterMulticast : Pass<"pallas-cluster-multicast", "::mlir::ModuleOp"> {
  let summary = "launch in thread-block clusters that share blocks through TMA multicast";
  let description = [{
    Runs on tile IR after pallas-stage-loads, for kernels whose rings a
    producer (`pallas_gpu.produce`) fills through the TMA. With `cluster`
    n > 1, the launch groups n consecutive CTAs along x into a cluster:
    consecutive programs in launch order, which differ only in the program
    id of the order's fastest axis (ProgramGrid.h) when that axis's extent
    (and program group) is a multiple of n. A producer's TMA copy whose
    block does not depend on that program id copies the same tile for all
    of them: it becomes a multicast (`pallas_gpu.tma_copy multicast`), each
    CTA issuing 1/n of its boxes to all n. The function gets
    `pallas_gpu.cluster = n`; the lowering then counts each slot's release
    in every CTA of the cluster, synchronizes the cluster after the slot
    barriers' initialization and before the CTAs exit.

    The producer's loops and predicates, and every ring loop's bounds, must
    not depend on that program id (the CTAs of a cluster fill and release
    their slots in step); where they do, or nothing is shared, or the grid
    does not pair up, the function gets `pallas_gpu.cluster_unused` (why)
    instead, and the backend warns.
  }];
  let options = [Option<"cluster", "cluster", "int64_t", "1",
                        "CTAs per cluster (compiler_params.cluster); 1 leaves kernels as they are">];
}

def PallasPersistentPrograms : Pass<"pallas-persistent-programs", "::mlir::ModuleOp"> {
  let summary = "CTAs loop over the programs (persistent kernels, tile IR)";
  let description = [{
    Runs on tile IR after pallas-stage-loads, for kernels whose ring loop
    has a producer warpgroup (`pallas_gpu.produce`). When the grid holds
    more programs than `ctas`, the launch starts `ctas` CTAs (the
    function's `pallas_gpu.persistent_ctas`), and each runs programs
    blockIdx.x, blockIdx.x + gridDim.x, ... in a loop: the consumers' code
    and the producer's each in a loop of their own, the program ids
    computed from the loop's index as the launch would number its blocks.
    The ring slot and its parity carry from program to program in both
    (the loops marked `pallas_gpu.ring_slot`), so the producer fills the
    next program's first slots while the consumers finish this one; the
    consumers meet at a barrier after each program. Kernels with rings
    allocated after the producer (a one-buffer ring per program) stay as
    they are.
  }];
  let options = [Option<"ctas", "ctas", "int64_t", "0",
                        "CTAs the launch starts (the chip's SMs); 0 leaves kernels as they are">];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect"];
}

def PallasWarpgroupTurns : Pass<"pallas-warpgroup-turns", "::mlir::ModuleOp"> {
  let summary = "warpgroups take turns at a loop's wgmma dots (ping-pong)";
  let description = [{
    Runs on tile IR after pallas-assign-layouts, for sm_90a. In an scf.for
    whose body holds more than one dot in the wgmma layout with two or more
    warpgroups (attention's QK^T and PV, with the softmax between them), the
    dots get the `pallas_gpu.turn` attribute and the loop is bracketed by
    `pallas_gpu.turns_begin` / `turns_end`: one warpgroup issues its dots
    while the others run their softmax, so the tensor cores never wait for
    the CUDA cores. pallas-stage-loads hands such loops' ring slots over
    with mbarriers (the warpgroups must drift apart), convert-tile-to-nvvm
    lowers the turns to named barriers. A loop with a single dot (a GEMM's
    K loop) has nothing to overlap and is left alone; so is one whose dot
    operands would not all fit pallas-stage-loads' two-buffer rings in
    `shared-bytes` (the rest would reach wgmma through shared memory behind
    a barrier of every consumer warp, which warpgroups staggered by turns
    never meet together).
  }];
  let options = [Option<"sharedBytes", "shared-bytes", "int64_t", "0",
                        "shared memory a CTA may use, in bytes (0: no limit checked)">];
  let dependentDialects = ["::mlir::pallas::pgpu::PallasGpuDialect"];
}

def PallasFoldExpScale : Pass<"pallas-fold-exp-scale", "::mlir::ModuleOp"> {
  let summary = "softmax's exponentials as exp2 with the scale and log2(e) folded in";
  let description = [{
    Runs on tile IR for CUDA targets, where `exp` becomes `ex2.approx` of
    its argument times log2(e). The row-softmax shape attention kernels
    write,

    ```
    s = x * c                      (c a positive splat constant)
    m = max(s, axis)               ->  m = max(x, axis) * c
    p = exp(s - broadcast(m))      ->  p = exp2(fma(x, c * log2e, broadcast(m * -log2e)))
    ```

    costs one FMA and one ex2 per element instead of three multiplies or
    subtractions and the ex2; the per-row work moves to the row vectors.
    `max(x * c) = max(x) * c` holds exactly for c > 0 (rounding is
    monotonic). Either rewrite also applies alone (`exp(x - broadcast(m))`
    without a scale). A mask between the scale and the max (causal
    attention's `select(keep, x * c, -1e30)`) first becomes
    `select(keep, x, -1e30 / c) * c` (masked elements still far below any
    score), so both rewrites apply behind it.
  }];
  let dependentDialects = ["::mlir::math::MathDialect", "::mlir::arith::ArithDialect"];
}

def PallasHoistEpilogueLoads : Pass<"pallas-hoist-epilogue-loads", "::mlir::ModuleOp"> {
  let summary = "issue a small load that follows a K loop before the loop";
  let description = [{
    Runs on tile IR for CUDA targets, last before convert-tile-to-nvvm. A
    GEMM's epilogue reads its bias row (or scale, or any small block) after
    the K loop, and the loop's last MMA is then followed by a global load's
    whole latency, once per tile. A `tt.load` of at most 1024 elements that
    comes after an scf.for holding a dot in the same block, whose address
    (and mask) the block computes from values defined before the loop
    without effects, and whose array nothing between the two positions
    writes (no store, atomic or TMA store to it or to an array sharing its
    buffer), moves before the loop with that address computation: its
    latency hides under the loop, for a few registers held across it.
  }];
}

def PallasFragmentOrderKeys : Pass<"pallas-fragment-order-keys", "::mlir::ModuleOp"> {
  let summary = "load fp8 attention's K rows permuted so P needs no quad shuffles";
  let description = [{
    Runs on tile IR for sm_90a, last before convert-tile-to-nvvm. An f8
    dot's A fragment holds four adjacent columns per thread; the wgmma
    accumulator layout two, so rounding attention's probabilities P into
    #pallas_gpu.wgmma_f8_a takes two quad shuffles per 16 columns. The
    columns of the scores S = Q K^T are K's rows: where a ring holding K
    is filled by the TMA alone and every read of it is K^T of an f8 dot
    whose scores reach nothing that depends on which column is which
    (elementwise ops whose other operands are splats or row broadcasts,
    row reductions by max, min or add, dot waits, branch yields, and the
    truncation to f8 cast into fragment order), the ring's tensor map gets
    `fragment_rows`: each box's rows permuted within 16 so that every
    thread holds the four adjacent keys of its fragment registers. Those
    casts get `pallas_gpu.keys_in_fragment_order` and join bytes of the
    thread's own registers. Maps of symbolic size, boxes not starting at
    a multiple of 16 rows (as the offsets' divisibility proves) and
    multicast copies are left alone.
  }];
}

def PallasMaskedMerges : Pass<"pallas-masked-merges", "::mlir::ModuleOp"> {
  let summary = "a store of select(m, new, the same elements loaded) as a masked store";
  let description = [{
    Runs on tile IR for CUDA targets. Pallas kernels merge new values into
    part of a block by reading the block and selecting, as JAX's megablox
    `gmm` writes the rows of a tile that belong to its group:
    `store(p, select(m, new, load(p, mask)), mask)`. Where the load reads
    the very elements the store writes (the same pointers and mask) and
    nothing between them writes memory, the elements `m` keeps off would be
    written back as they were: the store becomes `store(p, new, mask & m)`
    and the load goes. The block is then neither read nor held in the
    registers beside the new values.
  }];
}

def PallasFoldTrueMasks : Pass<"pallas-fold-true-masks", "::mlir::ModuleOp"> {
  let summary = "drop load and store masks that hold for every element";
  let description = [{
    Runs on tile IR for CUDA targets. Pallas kernels' bounds masks (an index
    tile compared with an array's extent) often hold for every element of
    every block the program touches: the grid and block shapes divide the
    arrays. Upstream integer range analysis (through the ranges of program
    ids, iotas, splats and loop induction variables) decides which; their
    loads and stores lose the mask (and a load its `other`), so copies need
    no predicate and may become bulk tensor copies.
  }];
}

def PallasPeelLoopEnds : Pass<"pallas-peel-loop-ends", "::mlir::ModuleOp"> {
  let summary = "a loop's first-iteration select and last-iteration branch leave it";
  let description = [{
    Runs on tile IR for CUDA targets. A sequential grid axis run as a loop
    (the K axis of a matmul written with a scratch accumulator) starts its
    body with `select(k == first, init, acc)` and ends it with
    `if (k == last) { ... store acc ... }`. In a loop of constant bounds
    that runs at least once, the select becomes the carried value itself,
    `init` the loop's initial value, and the branch moves after the loop,
    reading the loop's results: the loop is then the plain K loop that
    pallas-async-dots and pallas-stage-loads pipeline (no select per
    element and iteration, no use of a dot's result inside the loop that
    would wait for it).
  }];
}

def PallasFoldDotAdd : Pass<"pallas-fold-dot-add", "::mlir::ModuleOp"> {
  let summary = "an addition to a dot's zero-accumulated result becomes its accumulator";
  let description = [{
    Runs on tile IR for CUDA targets. `x + dot(a, b, 0)` (f32, the dot's
    only use) becomes `dot(a, b, x)`: the tensor cores add the products to
    x as they go, instead of a separate addition per element afterwards
    (attention's `acc * alpha + P V`; 64 FADD per thread and iteration at
    128x128 tiles over 8 warps). The sum is the same up to the order of
    f32 additions.
  }];
}

def PallasSinkLoopReductions : Pass<"pallas-sink-loop-reductions", "::mlir::ModuleOp"> {
  let summary = "a loop that adds each iteration's reduction to a total reduces once, after it";
  let description = [{
    Runs on tile IR for CUDA targets, before pallas-assign-layouts. In an
    scf.for whose carried `acc` only accumulates, `acc = acc + reduce(x)`
    (a sum along an axis, or a max or min with the same op on both
    sides), the loop carries the tile `t = t + x` instead and the
    reduction runs once after it: `acc0 + reduce(t)`. A reduction across
    threads goes through shared memory behind barriers; once per loop
    instead of once per iteration (JAX's layer_norm backward dw/db kernel
    reduces a 16 x 16 tile in each of 512 iterations). Sums are the same
    up to the order of the additions; max and min exactly.
  }];
}

def PallasBroadcastLoads : Pass<"pallas-broadcast-loads", "::mlir::ModuleOp"> {
  let summary = "a loop's 1-D load read only broadcast into a small tile loads the tile";
  let description = [{
    Runs on tile IR for CUDA targets, before pallas-assign-layouts. In an
    scf.for body, `broadcast(expand_dims(load(p)))` (maybe through an
    element type conversion) becomes `load(broadcast(expand_dims(p)))`
    where the tile holds at most 8 elements per thread: each thread loads
    the values its elements take (the cache serves the repeats) instead of
    the threads exchanging one load through shared memory behind
    barriers, every iteration (JAX's layer_norm backward dw/db kernel
    broadcasts each row's mean and 1/std over a 16 x 16 tile).
  }];
}

def PallasUnrollLoadLoops : Pass<"pallas-unroll-load-loops", "::mlir::ModuleOp"> {
  let summary = "unroll small loops of small loads, so that several iterations' loads are in flight";
  let description = [{
    Runs on tile IR for CUDA targets, before pallas-stage-loads. An
    innermost scf.for without dots whose loads are a few elements per
    thread and whose body is short waits for memory every iteration
    (pallas-stage-loads issues the next iteration's loads one ahead):
    unrolled (upstream's loopUnrollByFactor) by the power of two from 4
    to 16 that puts about 128 bytes a thread in flight, and that leaves
    at least two unrolled iterations of a constant trip count, that many
    iterations' loads go out together, and the prefetch fetches as far
    ahead (JAX's layer_norm backward dw/db kernel reads one bf16 of x,
    dy, the mean and 1/std per thread in each of 512 iterations: 16).
  }];
}

def PallasUniformMasks : Pass<"pallas-uniform-masks", "::mlir::ModuleOp"> {
  let summary = "skip a loop's mask in the iterations where it keeps the whole tile";
  let description = [{
    Runs on tile IR for CUDA targets, before pallas-assign-layouts. In an
    scf.for body, a tensor `select(cmpi(a, b), x, y)` whose compare varies
    with the loop and whose operands are built from iotas, splats of
    scalars and constants by additions (causal attention's
    `q_index >= k_index`) becomes `scf.if (the compare holds for every
    element) x else select(...)`: one scalar compare of the tiles' bounds
    decides, the same way for the whole CTA, and the blocks below the
    diagonal skip the per-element compare and select. Signed orderings
    only; index arithmetic is assumed not to wrap.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def PallasHeavyProgramsFirst : Pass<"pallas-heavy-programs-first", "::mlir::ModuleOp"> {
  let summary = "count a program axis down when later programs run longer loops";
  let description = [{
    Runs on tile IR for CUDA targets. The GPU starts CTAs in block order;
    when a loop's trip count grows with a program id (causal attention's
    `for j in 0..i+1`), the longest programs would start last and run
    alone at the end of the launch. For such an axis (not folded into x,
    more than one program), every `tt.get_program_id` of it becomes
    `(programs - 1) - id`: the longest programs start first. Parallel
    programs are independent, so the results are the same.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def PallasAsyncDots : Pass<"pallas-async-dots", "::mlir::ModuleOp"> {
  let summary = "wgmma dots run back to back: a turn's waited for once, a K loop's left in flight";
  let description = [{
    Runs on tile IR for sm_90a, after pallas-warpgroup-turns (if any) and
    before pallas-stage-loads. The dots of a turn spanning several dots
    (attention's PV_{j-1} beside QK^T_j after pallas-defer-last-dot) are
    issued without waiting for each (`pallas_gpu.async`); one
    `pallas_gpu.dot_wait` after the last takes all their results. The
    tensor cores run the dots back to back, and pallas-stage-loads refills
    the ring slots such dots read before issuing them rather than after
    waiting for them. Where the turn's accumulators and the A operands its
    dots take from the registers would leave a consumer thread fewer than
    32 registers (the budget setmaxnreg gives consumers beside a producer
    warpgroup), a dot taking A from the registers is waited for as it is
    issued and the next dot issued after it: together, ptxas would
    serialize every wgmma of the kernel (C7512).

    A GEMM's K loop (one dot 256 or more wide, accumulating a value only it
    carries) waits for its dot with one group left pending: each
    iteration's dot queues behind the last one, and a wait for all follows
    the loop. pallas-stage-loads refills the slot the last iteration read
    after the wait, behind a CTA barrier.
  }];
}

def PallasIssueDotsTogether : Pass<"pallas-issue-dots-together", "::mlir::ModuleOp"> {
  let summary = "independent wgmma dots of a loop issued back to back, waited for once";
  let description = [{
    Runs on tile IR for sm_90a, after pallas-stage-loads. In a loop body,
    a wgmma dot that reads nothing an earlier one computes, both with
    their operands in rings, moves up beside the earlier one with the ops
    it needs from the body (its ring slot's wait and read, its
    accumulator's initial value); both are issued without waiting
    (`pallas_gpu.async`) and one `pallas_gpu.dot_wait` after them takes
    both results (attention backward's Q K^T and dO V^T). A slot released
    between the two stops the move. In a loop
    of several dots, dots accumulating what the loop carries for them
    alone, with A in registers or a ring and B in a ring, are issued
    without waiting; one wait before the yield takes them, and the slots
    released after the first of them are released after it.
  }];
}

def PallasWorkUnderDots : Pass<"pallas-work-under-dots", "::mlir::ModuleOp"> {
  let summary = "row broadcasts moved above the waits of wgmma dots they do not need";
  let description = [{
    Runs on tile IR for sm_90a, after pallas-issue-dots-together. A
    broadcast into the wgmma accumulator layout after a
    `pallas_gpu.dot_wait` needing nothing the wait gives moves above it,
    with the pure ops it needs from there, where the waited results take at
    most 64 registers a thread.
  }];
}

def PallasTransposeScores : Pass<"pallas-transpose-scores", "::mlir::ModuleOp"> {
  let summary = "a loop's dots and the elementwise work between them computed transposed where their results are mostly read transposed";
  let description = [{
    Runs on tile IR for sm_90a, before pallas-uniform-masks (a causal mask
    is then one select) and pallas-assign-layouts. In an scf.for
    body, a region of dots and the elementwise ops between them (every
    value one 2-D shape, closed under users in the body) whose values leave
    it only as transposes or as other dots' A or B operands is computed
    transposed where more leave as transposes: `dot(A, B, C)` becomes
    `dot(B^T, A^T, C^T)`, broadcasts of vectors swap axes, constants and
    splats take the transposed shape; a transpose of a region value reads
    the transposed value, a dot reading one as an operand reads it
    transposed back. Attention backward's dK/dV scan then computes
    S^T = K Q^T, P^T and dS^T, which the dV and dK dots take as register A
    operands without an exchange through shared memory.
  }];
  let dependentDialects = ["::mlir::pallas::tt::TTDialect", "::mlir::arith::ArithDialect"];
}

def PallasDeferLastDot : Pass<"pallas-defer-last-dot", "::mlir::ModuleOp"> {
  let summary = "a loop's last dot issues in the next iteration, beside its first dot";
  let description = [{
    Runs on tile IR for sm_90a, before pallas-assign-layouts. In an scf.for
    whose body holds two or more dots, the last one reading the work done
    on an earlier one (attention's `dot(P, V_j, O * a)` after the softmax
    of `dot(Q, K_j)`) and accumulating a loop-carried value that only it
    updates, the last dot and the ops only it needs (its B operand's load,
    the accumulator's rescale) move to the next iteration: they run first
    there, beside the next first dot, on the values the earlier iteration left
    (P and the rescale factor, carried). A prologue runs the first
    iteration's first part, an epilogue the last iteration's last part.
    With warpgroups taking turns, one turn then holds both dots, and one
    warpgroup's softmax hides under two dots of the other (FA3's schedule).
    Loops that write memory, or whose trip count could be zero (bounds are
    checked from constants and the launch grid's program ids), are left
    alone; so are loops whose trip count varies by program unless
    `dynamic-trip-counts` is set (causal attention measured slower so).
  }];
  let options = [
    Option<"dynamicTripCounts", "dynamic-trip-counts", "bool", /*default=*/"false",
           "also defer in loops whose bounds depend on the program id">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def PallasAssignLayouts : Pass<"pallas-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "choose how tile IR tensors are spread over a CTA's threads";
  let description = [{
    Runs on tile IR (after convert-pallas-to-tile) for CUDA targets, with
    the CTA's warps from the function's `#pallas.launch`.
    Tensors default to the blocked layout. Dots that tensor cores can run
    (bf16/f16 operands, or f32 at TF32 precision, with an f32 result whose
    shape tiles over the warps in 16x8 pieces) get the `#pallas_gpu.mma`
    encoding (GpuAttrs.td) on their result and accumulator; a loop that carries the
    accumulator carries that layout. `tensor.cast` marks every change of
    layout; a result leaving the mma layout only to be truncated
    (`arith.truncf`) is truncated first, in the mma layout. A value
    computed elementwise from splats and row or column broadcasts only to
    enter an mma layout (a dot's accumulator started at `0 - delta`) is
    computed in that layout, so that only the row crosses shared memory.
  }];
  let options = [Option<"wgmma", "wgmma", "bool", "false",
                        "use Hopper's warpgroup MMA (sm_90a) where it fits: "
                        "the #pallas_gpu.wgmma encoding">,
                 Option<"wgmmaBlocks", "wgmma-blocks", "int64_t", /*default=*/"1",
                        "with wgmma: the m64 row blocks a warpgroup's accumulator may "
                        "hold (Pallas:MGPU kernels: 128 x N per warpgroup)">];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::pallas::pgpu::PallasGpuDialect"];
}

def PallasAsyncCopies : Pass<"pallas-async-copies", "::mlir::ModuleOp"> {
  let summary = "manual DMA into scoped buffers by cp.async, waited for where read";
  let description = [{
    Runs on tile IR after pallas-assign-layouts. convert-pallas-to-tile
    turns `pallas.async_copy` from an array window into a scoped buffer into
    a `tt.load` marked `pallas.async_copy` (the buffer's value); here each
    such load of a 2-D tile becomes a one-buffer ring filled by
    `pallas_gpu.async_copy` and its own `pallas_gpu.async_commit` group,
    where the copy starts, and the value is read from the ring
    (`pallas_gpu.ring_read`) after a `pallas_gpu.async_wait` for that
    group, just before the first op that uses it (which `pallas.dma_wait`
    precedes) or that writes memory (the copy reads its window when it
    starts). On sm_80 and later these are cp.async groups: the copy runs
    while the kernel goes on. Loads whose value a dot reads stay as they are
    (pallas-stage-loads places dot operands in the layouts the dots read),
    and so do the copies beyond a quarter of `shared-bytes` (the rest of
    shared memory is for the dots' rings and exchanges).

    With `tma` (sm_90a), a copy the TMA can make (a tile of whole rows of an
    array parameter, see pallas-stage-loads) goes by the TMA instead, into a
    buffer with the 128-byte swizzle: the CTA's threads read the phase of
    the buffer's mbarrier (`pallas_gpu.filled_phase`) and meet at a barrier
    (everyone is done with what the buffer held), thread 0 issues the copy
    (`pallas_gpu.tma_copy`), and the readers wait for that phase
    (`pallas_gpu.wait_filled`) where the cp.async wait would be.
  }];
  let options = [Option<"sharedBytes", "shared-bytes", "int64_t", "0",
                        "shared memory of a CTA (0: every copy stays a load)">,
                 Option<"tma", "tma", "bool", "false",
                        "copies by the TMA where it can make them (sm_90a)">];
  let dependentDialects = ["::mlir::pallas::pgpu::PallasGpuDialect",
                           "::mlir::gpu::GPUDialect"];
}

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "lower tile IR (tt) to per-thread code in a gpu.module";
  let description = [{
    Runs after convert-pallas-to-tile. Each `tt.func` becomes a
    `gpu.func` kernel (one program = one CTA of 32 * num_warps threads, from
    the function's `#pallas.launch`) in
    the `gpu.module @pallas_kernels`, taking one global pointer per array.
    Tensors are spread over the threads by the blocked layout (chunks of up
    to four consecutive elements per thread, round robin) and become one
    vector per thread. Loads and stores of contiguous, aligned, unmasked
    chunks are single vector accesses (checked at run time); others are
    predicated per element. Broadcast, transpose, join, scan and dot read
    their operands from dynamic shared memory; reductions fold per thread,
    then across lanes with shuffles and across warps through shared memory.
    f32 `math.exp` becomes `ex2.approx` of x * log2(e) and f32 division
    `div.approx` (both within 2 ulp), as fast device code. What it decides
    about the launch (threads, grid, shared memory, cluster, persistent
    CTAs, tensor maps) goes into the gpu.func's one
    `#pallas_gpu.launch_config`, which the CUDA backend reads; the block and
    grid sizes also into `known_block_size` and `known_grid_size`, and the
    cluster into `nvvm.cluster_dim`, for the code.

    A `pallas_gpu.produce` (warp specialization) gives the kernel a
    warpgroup more: its threads branch off at the op, give registers up
    (setmaxnreg), and one of them runs the region; the rest of the kernel
    runs on the num_warps warps, which take the registers, and whose
    CTA-wide barriers become a named barrier counting only them.

    With `tma-store-area`, TMA stores inside an innermost loop write their
    tiles into an area of shared memory of their own, after the scratch
    area the other exchanges share: those need not wait for the stores'
    reads of it (the next store does), so a loop that adds a tile into
    global memory each iteration (attention backward's dQ) does not stall
    on its last store's reads at its first exchange of the next.
  }];
  let options = [
    Option<"tmaStoreArea", "tma-store-area", "bool", /*default=*/"true",
           "TMA stores in a loop get a shared-memory area of their own">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::pallas::pgpu::PallasGpuDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // PALLAS_CUDA_PASSES
