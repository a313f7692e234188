//===- GpuUserScheduleOps.td - shared memory a kernel schedules itself -*- tablegen -*-===//
//
// Pallas:MGPU kernels (plgpu) move their data themselves: they name
// shared-memory buffers, copy into and out of them with the TMA, wait on
// mbarriers and commit groups of stores. convert-plgpu-to-tile keeps that
// schedule as these ops, over the rings of GpuOps.td (a buffer array of the
// kernel is a ring, indexed by slot): nothing here is moved or staged by
// the compiler. All threads of a warpgroup (one Pallas thread) execute
// each op; where one thread issues, it is one of its first warp.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_GPU_USER_SCHEDULE_OPS
#define PALLAS_GPU_USER_SCHEDULE_OPS

def PG_MBarriersType : TypeDef<PallasGpu_Dialect, "MBarriers"> {
  let mnemonic = "mbarriers";
  let summary = "`count` mbarriers, each completing a phase per `arrivals` arrivals";
  let description = [{
    A kernel's `Barrier(num_arrivals, num_barriers)`: an arrival is one
    `pallas_gpu.tma_load` signalling the barrier (counted complete once its
    bytes land) or one `pallas_gpu.mbarrier_arrive`. Threads wait for a
    phase by its parity, which they track themselves.

    With `ctas = n` (a cluster barrier, n > 1), each of the n CTAs of the
    cluster has the barriers at the same place, and an
    `pallas_gpu.mbarrier_arrive` arrives on all n: a phase completes once
    every CTA made its arrivals (`arrivals` counts all of them). A wait on
    it also sees what the other CTAs did before arriving.
  }];
  let parameters = (ins "int64_t":$count, "int64_t":$arrivals,
                        DefaultValuedParameter<"int64_t", "1">:$ctas);
  let builders = [
    TypeBuilder<(ins "int64_t":$count, "int64_t":$arrivals), [{
      return $_get($_ctxt, count, arrivals, 1);
    }]>
  ];
  let assemblyFormat = "`<` $count `,` `arrivals` `=` $arrivals (`,` `ctas` `=` $ctas^)? `>`";
  let genVerifyDecl = 1;
}

def PG_AllocMBarriersOp : PG_Op<"alloc_mbarriers", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "mbarriers in shared memory, initialized, live for the kernel";
  let results = (outs PG_MBarriersType:$barriers);
  let assemblyFormat = "attr-dict `:` qualified(type($barriers))";
}

def PG_MBarrierWaitOp : PG_Op<"mbarrier_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until barrier `index` completed its phase of parity `phase`";
  let description = [{
    Afterwards the thread sees what the arrivals of that phase released
    (the bytes of the copies that signalled it).
  }];
  let arguments = (ins PG_MBarriersType:$barriers, I32:$index, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `phase` $phase attr-dict `:` qualified(type($barriers))
  }];
}

def PG_MBarrierTestOp : PG_Op<"mbarrier_test", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "whether barrier `index` completed its phase of parity `phase` (no wait)";
  let description = [{
    Each thread asks for itself; where the answer is yes, it sees what
    the arrivals of that phase released, as after a wait.
  }];
  let arguments = (ins PG_MBarriersType:$barriers, I32:$index, I32:$phase);
  let results = (outs I1:$completed);
  let assemblyFormat = [{
    $barriers `[` $index `]` `phase` $phase attr-dict `:` qualified(type($barriers))
  }];
}

def PG_MBarrierArriveOp : PG_Op<"mbarrier_arrive", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the warpgroup arrives on barrier `index`";
  let description = [{
    Once every thread of the warpgroup reached it (and so is done with what
    it did before), one arrival, which releases those accesses to the
    waiters. With `per_warp`, one arrival per warp instead, each once its
    own threads reached it (no wait for the others; the barrier counts four
    per warpgroup).
  }];
  let arguments = (ins PG_MBarriersType:$barriers, I32:$index, UnitAttr:$per_warp);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`per_warp` $per_warp^)? attr-dict `:` qualified(type($barriers))
  }];
}

def PG_TmaLoadOp : PG_Op<"tma_load", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "copy a tile from global memory into a ring buffer with the TMA; signal a barrier";
  let description = [{
    The tile `ptr` addresses (a tensor of `!tt.ptr`, shaped as the ring's
    tile, whole rows contiguous and rows a constant step apart; elements
    outside the array read as zero), whose first element is element
    `origin` of the array (the same in every thread: the copy's
    coordinates follow from it), is copied into buffer `slot` through
    kernel tensor map `tensor_map` (an index into the function's
    `pallas_gpu.tensor_maps`; `ptr` is what the map was derived from).
    Once every thread reached the op (so nothing reads the buffer any
    more), one thread expects the tile's bytes on barrier `index` and starts
    the copy: one arrival, complete when the bytes land.

    With `multicast`, every CTA of the kernel's cluster (`pallas_gpu.cluster`)
    issues the same copy: each fetches a part of the tile once and the TMA
    writes it into all of them, at the same place, signalling each one's
    barrier. Each still expects the whole tile's bytes.
  }];
  let arguments = (ins PG_PtrTensor:$ptr, I32:$origin, PG_RingType:$ring, I32:$slot,
                       PG_MBarriersType:$barriers, I32:$index, I64Attr:$tensor_map,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $ptr `at` $origin `into` $ring `[` $slot `]` `signal` $barriers `[` $index `]`
    (`multicast` $multicast^)? attr-dict
    `:` type($ptr) `,` qualified(type($ring)) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def PG_RingWriteOp : PG_Op<"ring_write", [MemoryEffects<[MemWrite]>]> {
  let summary = "the threads write a tensor into a ring buffer";
  let description = [{
    Each thread writes its elements of `value` (any layout) into buffer
    `slot`, laid out as the ring's tile says. No barrier: a kernel orders
    its writes before whoever reads them itself (`pallas_gpu.commit_smem`).
    A layout cast into the operand folds away: each thread writes the
    elements it holds, in whatever layout.
  }];
  let arguments = (ins AnyRankedTensor:$value, PG_RingType:$ring, I32:$slot);
  let assemblyFormat = [{
    $value `into` $ring `[` $slot `]` attr-dict `:` type($value) `,` qualified(type($ring))
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

def PG_CommitSmemOp : PG_Op<"commit_smem", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "make the threads' shared-memory writes visible to the TMA and wgmma";
  let description = [{
    A proxy fence (the TMA and wgmma read shared memory through the async
    proxy), then a barrier of the CTA's threads.
  }];
  let assemblyFormat = "attr-dict";
}

def PG_TmaStoreBufferOp : PG_Op<"tma_store_buffer", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "copy a ring buffer out to global memory with the TMA";
  let description = [{
    One thread starts copying buffer `slot` to the tile `ptr` addresses, from
    array element `origin` on (as for `pallas_gpu.tma_load`; elements
    outside the array are skipped), through kernel tensor map
    `tensor_map`. With `rows from`, the copy takes as many rows as `ptr`
    has from row `row` of the buffer on (a tile of dense rows,
    `#pallas_gpu.shared<row_major>`). The copy belongs to the next
    `pallas_gpu.bulk_commit` group. With `reduce` ("add", "min", "max",
    "and", "or", "xor"), the TMA combines the buffer with what global
    memory holds, element by element, as its tensor map's data type says.
  }];
  let arguments = (ins PG_RingType:$ring, I32:$slot, Optional<I32>:$row, PG_PtrTensor:$ptr,
                       I32:$origin, I64Attr:$tensor_map, OptionalAttr<StrAttr>:$reduce);
  let assemblyFormat = [{
    $ring `[` $slot `]` (`rows` `from` $row^)? `to` $ptr `at` $origin (`reduce` $reduce^)? attr-dict `:`
    qualified(type($ring)) `,` type($ptr)
  }];
  let hasVerifier = 1;
}

def PG_BulkCommitOp : PG_Op<"bulk_commit", [MemoryEffects<[MemWrite]>]> {
  let summary = "close the group of TMA stores started since the last one";
  let assemblyFormat = "attr-dict";
}

def PG_BulkWaitOp : PG_Op<"bulk_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` groups of TMA stores are in flight";
  let description = [{
    With `read`, until they have read their buffers (which may then be
    written again); without, until their writes are done. Then a barrier of
    the CTA's threads.
  }];
  let arguments = (ins I64Attr:$pending, UnitAttr:$read);
  let assemblyFormat = "$pending (`read` $read^)? attr-dict";
}

def PG_WarpgroupIdOp : PG_Op<"warpgroup_id", [Pure]> {
  let summary = "this thread's warpgroup in the CTA (its Pallas thread)";
  let description = [{
    In a function of several warpgroups (`pallas_gpu.warpgroups`): the
    index of the thread's warpgroup, the same in all of its threads (a
    branch on it keeps each warp converged).
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def PG_SetMaxRegistersOp : PG_Op<"set_max_registers", [MemoryEffects<[MemWrite]>]> {
  let summary = "the warpgroup's threads may use `count` registers from here on";
  let description = [{
    `increase` asks for more (waiting until another warpgroup gave them
    up), otherwise it gives registers up (setmaxnreg). All threads of the
    warpgroup execute it.
  }];
  let arguments = (ins I64Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "$count (`increase` $increase^)? attr-dict";
}

#endif
