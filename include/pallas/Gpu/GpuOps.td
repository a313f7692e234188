//===- GpuOps.td - tile IR ops for staging blocks in shared memory -*- tablegen -*-===//
//
// The CUDA target's additions to tile IR: pallas-stage-loads streams a loop's
// dot operands from global memory into rings of shared-memory buffers with
// asynchronous copies (cp.async), several iterations ahead, and the dot
// reads them from there. A ring is `stages` buffers of one tile each;
// copies are issued and awaited in groups, per thread, as cp.async works.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_GPU_OPS
#define PALLAS_GPU_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def PallasGpu_Dialect : Dialect {
  let name = "pallas_gpu";
  let summary = "shared-memory staging of tile IR blocks on CUDA targets";
  let cppNamespace = "::mlir::pallas::pgpu";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerAttributes();
  public:
  }];
}

include "pallas/Gpu/GpuAttrs.td"

class PG_Op<string mnemonic, list<Trait> traits = []> : Op<PallasGpu_Dialect, mnemonic, traits>;

def PG_RingType : TypeDef<PallasGpu_Dialect, "Ring"> {
  let mnemonic = "ring";
  let summary = "`stages` shared-memory buffers, each holding one tile";
  let description = [{
    The tile's encoding, a `#pallas_gpu.shared`, says how each buffer lays
    the tile out; without one, rows are padded.
  }];
  let parameters = (ins "int64_t":$stages, "::mlir::RankedTensorType":$tile);
  let assemblyFormat = "`<` $stages `,` $tile `>`";
  let genVerifyDecl = 1;
}

def PG_PtrTensor : RankedTensorOf<[AnyType]>;
def PG_BoolTensor : RankedTensorOf<[I1]>;

def PG_AllocRingOp : PG_Op<"alloc_ring", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a ring of shared-memory tile buffers, live for the kernel";
  let results = (outs PG_RingType:$ring);
  let assemblyFormat = "attr-dict `:` type($ring)";
}

def PG_AsyncCopyOp : PG_Op<"async_copy", [AttrSizedOperandSegments,
                                          MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a tile from global memory into a ring buffer";
  let description = [{
    Each element of `ptr` (a tensor of `!tt.ptr`, shaped as the ring's
    tile) is copied into buffer `slot` of the ring; elements whose `mask`
    is false, or all of them when `pred` is false, become zero (their
    addresses are not read). The copy completes at a later
    `pallas_gpu.async_wait`, counted by `pallas_gpu.async_commit` groups.
  }];
  let arguments = (ins PG_PtrTensor:$ptr, PG_RingType:$ring, I32:$slot,
                       Optional<PG_BoolTensor>:$mask, Optional<I1>:$pred);
  let assemblyFormat = [{
    $ptr `into` $ring `[` $slot `]` (`mask` $mask^)? (`if` $pred^)? attr-dict
    `:` type($ptr) `,` qualified(type($ring)) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def PG_AsyncCommitOp : PG_Op<"async_commit", [MemoryEffects<[MemWrite]>]> {
  let summary = "close the group of copies this thread started since the last one";
  let assemblyFormat = "attr-dict";
}

def PG_AsyncWaitOp : PG_Op<"async_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` groups are in flight, CTA-wide";
  let description = [{
    Every thread waits for its own copies but the last `pending` groups,
    then the CTA synchronizes: afterwards every thread sees every completed
    copy, and every thread has finished what it did before (so buffers read
    earlier may be overwritten).
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def PG_SlotBarriersType : TypeDef<PallasGpu_Dialect, "SlotBarriers"> {
  let mnemonic = "slot_barriers";
  let summary = "per ring slot, a 'filled' and a 'released' mbarrier";
  let description = [{
    Rings whose slots are handed between threads by mbarriers instead of
    CTA-wide barriers: a slot's `filled` barrier completes a phase when every
    thread's copies into it have landed, its `released` barrier when every
    thread is done reading it. Threads wait for a phase by its parity (0 or
    1), so a warp may run ahead of others by up to the ring's depth.
  }];
  let parameters = (ins "int64_t":$stages);
  let assemblyFormat = "`<` $stages `>`";
}

def PG_AllocSlotBarriersOp : PG_Op<"alloc_slot_barriers", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "the slot barriers of a ring loop, initialized, live for the kernel";
  let description = [{
    Every thread of the CTA takes part in each phase of each barrier (each
    arrives once per phase); all threads execute this op. With `tma`, the
    slots are filled by `pallas_gpu.tma_copy`: one arrival (with the bytes
    the copies bring) completes a filled phase, and the released barriers
    are counters of the warps done with each slot (from zero). With
    `producer` (and `tma`), a producer thread (`pallas_gpu.produce`) waits
    for the released barriers, which every warp of the other threads (the
    consumers) arrives on once per phase.
  }];
  let arguments = (ins UnitAttr:$tma, UnitAttr:$producer);
  let results = (outs PG_SlotBarriersType:$barriers);
  let assemblyFormat = [{
    (`tma` $tma^)? (`producer` $producer^)? attr-dict `:` qualified(type($barriers))
  }];
}

def PG_ArriveFilledOp : PG_Op<"arrive_filled", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on `slot`'s filled barrier once this thread's copies land";
  let description = [{
    The arrival happens asynchronously, when every `pallas_gpu.async_copy`
    this thread started before (into `ring` and others) has completed. With
    `pred` false, nothing (the slot is not going to be waited for).
  }];
  let arguments = (ins PG_SlotBarriersType:$barriers, I32:$slot, PG_RingType:$ring,
                       Optional<I1>:$pred);
  let assemblyFormat = [{
    $barriers `[` $slot `]` `for` $ring (`if` $pred^)? attr-dict `:` qualified(type($barriers))
    `,` qualified(type($ring))
  }];
}

def PG_TmaCopyOp : PG_Op<"tma_copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "one thread copies a tile into a ring buffer with the TMA";
  let description = [{
    The tile `ptr` addresses (a tensor of `!tt.ptr`, shaped as the ring's
    tile, whole rows contiguous and rows a constant step apart) is copied
    into buffer `slot` by the tensor memory accelerator, through kernel
    tensor map `tensor_map` (an index into the function's
    `pallas_gpu.tensor_maps`): one thread expects the tile's bytes on the
    slot's filled barrier and starts the copies, which complete that
    barrier's phase as they land. That thread is thread 0 or, with
    `last_reader`, a thread of the warp that reaches the op last for this
    slot: every warp counts itself done with what the slot held, and the
    one completing the count (all warps of the CTA) issues the copy, so
    no thread waits for the others. With `producer`, the one thread that
    executes it (in a `pallas_gpu.produce` region). With `pred` false,
    nothing (the slot is not going to be waited for, nor counted). All
    threads execute the op, but for `producer`.

    With `multicast` (a kernel launched in clusters, `pallas_gpu.cluster`:
    every CTA of the cluster copies the same tile into the same slot), the
    CTAs share the work: each issues its part of the boxes to all of the
    cluster's CTAs at once, and each CTA's filled barrier counts the whole
    tile's bytes, wherever they came from.
  }];
  let arguments = (ins PG_PtrTensor:$ptr, PG_RingType:$ring, I32:$slot,
                       PG_SlotBarriersType:$barriers, Optional<I1>:$pred,
                       I64Attr:$tensor_map, UnitAttr:$last_reader, UnitAttr:$producer,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $ptr `into` $ring `[` $slot `]` `signal` $barriers (`if` $pred^)? attr-dict
    `:` type($ptr) `,` qualified(type($ring)) `,` qualified(type($barriers))
  }];
}

def PG_TmaStoreOp : PG_Op<"tma_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the CTA stores an accumulator tile to global memory through the TMA";
  let description = [{
    `value` (a tensor in a tensor-core accumulator layout) is stored to the
    tile `ptr` addresses (shaped as `value`, whole rows contiguous and rows
    a constant step apart), as a `tt.store` of it in the blocked layout
    would: every thread writes its elements into the scratch area of
    shared memory with the 128-byte swizzle, and thread 0 copies the tile
    out with one bulk tensor store per 128-byte column, through kernel
    tensor map `tensor_map` (an index into the function's
    `pallas_gpu.tensor_maps`; the map's bounds clip what lies outside the
    array). Thread 0 waits until the copies have read shared memory before
    it goes on or, where TMA stores are the only users of the scratch area
    and it overlaps no ring, before the next TMA store writes it and before
    the kernel returns (the copies run on while the CTA's next program
    starts). All threads of the CTA (but a producer) execute the op.

    With `reduce_add`, the copies add the tile into global memory instead
    (cp.reduce.async.bulk.tensor .add), as a `tt.atomic_rmw fadd` of it
    whose old values nobody reads would: relaxed, each element's addition
    atomic, complete by the kernel's end.
  }];
  let arguments = (ins PG_PtrTensor:$ptr, AnyRankedTensor:$value, I64Attr:$tensor_map,
                       UnitAttr:$reduce_add);
  let assemblyFormat = [{
    $value `to` $ptr attr-dict `:` type($value) `,` type($ptr)
  }];
}

def PG_WaitFilledOp : PG_Op<"wait_filled", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until `slot` is filled (its filled barrier's phase of parity `phase`)";
  let arguments = (ins PG_SlotBarriersType:$barriers, I32:$slot, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $slot `]` `phase` $phase attr-dict `:` qualified(type($barriers))
  }];
}

def PG_FilledPhaseOp : PG_Op<"filled_phase", [MemoryEffects<[MemRead]>]> {
  let summary = "the parity of `slot`'s filled barrier's current phase";
  let description = [{
    The parity (0 or 1) of the phase the next copies into `slot` complete,
    read from the barrier itself (which of the two parities the last
    completed phase had). Read it before the copy can land (before the
    barrier that precedes the copy's issue), then wait for the slot with
    it: a manual DMA's copy and wait need no count of the copies before.
  }];
  let arguments = (ins PG_SlotBarriersType:$barriers, I32:$slot);
  let results = (outs I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $slot `]` attr-dict `:` qualified(type($barriers))
  }];
}

def PG_ReleaseSlotOp : PG_Op<"release_slot", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "this thread is done reading `slot`: arrive on its released barrier";
  let description = [{
    Every thread of the CTA (but a producer) executes it (warps converged):
    one arrival per warp once all its threads are done. With `pred` false,
    no arrival. In a kernel launched in clusters, each warp arrives on the
    slot's released barrier in every CTA of the cluster (whose producers
    may fill this CTA's slot through multicast copies).
  }];
  let arguments = (ins PG_SlotBarriersType:$barriers, I32:$slot, Optional<I1>:$pred);
  let assemblyFormat = [{
    $barriers `[` $slot `]` (`if` $pred^)? attr-dict `:` qualified(type($barriers))
  }];
}

def PG_WaitReleasedOp : PG_Op<"wait_released", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until every thread released `slot` (released barrier's phase of parity `phase`)";
  let description = [{
    A fresh barrier counts as having completed a phase of parity 1: waiting
    for it returns at once, so a slot never filled needs no release.
  }];
  let arguments = (ins PG_SlotBarriersType:$barriers, I32:$slot, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $slot `]` `phase` $phase attr-dict `:` qualified(type($barriers))
  }];
}

def PG_ProduceOp : PG_Op<"produce", [SingleBlock, NoTerminator,
                                      RecursiveMemoryEffects]> {
  let summary = "the producer warpgroup's work: filling rings ahead of their readers";
  let description = [{
    Warp specialization: the kernel runs a warpgroup beyond its num_warps,
    the producer. One thread of it runs this region (TMA copies into rings,
    each after waiting for the slot's release); the rest of the kernel
    after this op runs on the num_warps warps only (the consumers), whose
    CTA-wide barriers become named barriers of their own. The producer
    gives registers up to the consumers (setmaxnreg). At most one per
    kernel, in its entry block, after the rings and slot barriers it fills
    and before anything else with effects.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
}

def PG_TurnsBeginOp : PG_Op<"turns_begin", [MemoryEffects<[MemWrite]>]> {
  let summary = "warpgroups start taking turns at issuing their dots (warpgroup 0 first)";
  let description = [{
    Between `turns_begin` and `turns_end`, the dots carrying the
    `pallas_gpu.turn_take` / `turn_pass` attributes are issued by one
    warpgroup at a time, in round robin: a warpgroup waits for its turn
    before issuing its part of a `turn_take` dot and passes the turn on once
    the wgmma of a `turn_pass` dot are issued (not done); dots between the
    two are issued in the same turn.
    While one warpgroup's dots run on the tensor cores, the others do their
    other work (the FA3 "ping-pong"). Every warpgroup must reach the same
    sequence of marked dots.
  }];
  let assemblyFormat = "attr-dict";
}

def PG_TurnsEndOp : PG_Op<"turns_end", [MemoryEffects<[MemWrite]>]> {
  let summary = "the end of warpgroup turns (takes back the last turn passed)";
  let assemblyFormat = "attr-dict";
}

def PG_DotWaitOp : PG_Op<"dot_wait", [MemoryEffects<[MemRead, MemWrite]>,
                                      AllTypesMatch<["values", "results"]>]> {
  let summary = "wait for asynchronous wgmma dots; their results, usable afterwards";
  let description = [{
    Dots carrying `pallas_gpu.async` are issued without waiting for them:
    their results are in flight until a `dot_wait` that takes them. It
    waits until at most `pending` of this warpgroup's dots issued before it
    are still running (dots finish in the order they were issued) and
    returns `values` unchanged: uses of the results go through it, so
    nothing reads an accumulator before its dot is done. Shared memory a
    waited dot read may be reused after the wait.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values, I64Attr:$pending);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $pending (`,` $values^)? attr-dict (`:` type($values)^)?
  }];
}

def PG_RingReadOp : PG_Op<"ring_read", [MemoryEffects<[MemRead]>]> {
  let summary = "the tile in buffer `slot` of a ring, or its columns from `col` on";
  let description = [{
    With `col` (in elements, a multiple of a 128-byte atom column of a
    swizzled tile), the result (narrower than the tile) is the tile's
    columns from `col` on, laid out as a tile of the result's shape, at the
    atom column `col` starts.
  }];
  let arguments = (ins PG_RingType:$ring, I32:$slot, Optional<I32>:$col);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $ring `[` $slot `]` (`cols` $col^)? attr-dict `:` qualified(type($ring)) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$ring, "Value":$slot), [{
      build($_builder, $_state, result, ring, slot, Value());
    }]>
  ];
  let hasVerifier = 1;
}

def PG_OwnRegistersOp : PG_Op<"own_registers", [NoMemoryEffect, AllTypesMatch<["source", "result"]>]> {
  let summary = "a tile copied here into a register of its own per element a thread holds";
  let description = [{
    Returns `source` unchanged. Where a tile's elements repeat (a row
    broadcast over a wgmma accumulator's rows: rows g and g + 8 of a thread
    alike), each value is otherwise kept once, and copied into the distinct
    registers a wgmma accumulator takes right before the wgmma, wherever
    that is (after an earlier dot's issue, where ptxas then waits for that
    dot). Taken as a dot's accumulator start, the copies are made here,
    where the start is computed. (Not speculatable: hoisted out of a loop,
    the copies would be made where nothing needs them.)
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source)";
}

include "pallas/Gpu/GpuUserScheduleOps.td"

#endif
