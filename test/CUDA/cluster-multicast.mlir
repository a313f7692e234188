// pallas-cluster-multicast: with cluster = n > 1, a kernel whose producer
// warpgroup (pallas_gpu.produce) fills its rings through the TMA launches in
// clusters of n CTAs that differ only in the program id of the launch
// order's fastest axis; the producer's copies whose block does not depend on
// that id become multicasts, and the function gets pallas_gpu.cluster = n.
// Where that cannot be, the function gets pallas_gpu.cluster_unused with the
// reason instead and nothing else changes. cluster = 1 (the default) leaves
// every kernel as it is.
// RUN: pallas-opt %s --pallas-cluster-multicast=cluster=2 | FileCheck %s
// RUN: pallas-opt %s --pallas-cluster-multicast | FileCheck %s --check-prefix=OFF

// OFF-NOT: multicast
// OFF-NOT: pallas_gpu.cluster

// A GEMM's producer on a 4 x 2 grid: x's block follows program id x (the
// fastest axis without a program order), y's only program id y and the
// loop: the CTAs of a cluster (ids x = 2c, 2c + 1) share y's block.
// CHECK-LABEL: tt.func public @shared
// CHECK-SAME: pallas_gpu.cluster = 2 : i64
// CHECK-NOT: cluster_unused
// CHECK: pallas_gpu.tma_copy %{{.*}} into %{{.*}} signal %{{.*}} {producer, tensor_map = 0 : i64}
// CHECK: pallas_gpu.tma_copy %{{.*}} into %{{.*}} signal %{{.*}} {multicast, producer, tensor_map = 1 : i64}
// CHECK: tt.return

tt.func public @shared(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 256, 512>},
                       %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 512, 128>})
    attributes {pallas.launch = #pallas.launch<symbol = "shared", grid = [4, 2], num_warps = 4, expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %rb = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %c32768 = arith.constant 32768 : i32
    %c128i = arith.constant 128 : i32
    %c2 = arith.constant 2 : i32
    %i = tt.get_program_id x : i32
    %j = tt.get_program_id y : i32
    // x[64 i + r, 64 k + c] (row 512 elements), y[64 k + r, 64 j + c] (row 128).
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %re = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tt.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
    %s512 = arith.constant dense<512> : tensor<64x1xi32>
    %s128 = arith.constant dense<128> : tensor<64x1xi32>
    %rx = arith.muli %re, %s512 : tensor<64x1xi32>
    %ry = arith.muli %re, %s128 : tensor<64x1xi32>
    %rxb = tt.broadcast %rx : tensor<64x1xi32> -> tensor<64x64xi32>
    %ryb = tt.broadcast %ry : tensor<64x1xi32> -> tensor<64x64xi32>
    %tx = arith.addi %rxb, %cb : tensor<64x64xi32>
    %ty = arith.addi %ryb, %cb : tensor<64x64xi32>
    %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %px0 = tt.addptr %xs, %tx : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %py0 = tt.addptr %ys, %ty : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %xrow = arith.muli %i, %c32768 : i32
    %ycol = arith.muli %j, %c64 : i32
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      %kx = arith.muli %k, %c64 : i32
      %ox = arith.addi %xrow, %kx : i32
      %oxs = tt.splat %ox : i32 -> tensor<64x64xi32>
      %px = tt.addptr %px0, %oxs : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      %ky = arith.muli %kx, %c128i : i32
      %oy = arith.addi %ycol, %ky : i32
      %oys = tt.splat %oy : i32 -> tensor<64x64xi32>
      %py = tt.addptr %py0, %oys : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      %released = arith.xori %phase, %c1 : i32
      pallas_gpu.wait_released %ba[%slot] phase %released : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %px into %ra[%slot] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      pallas_gpu.wait_released %bb[%slot] phase %released : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %py into %rb[%slot] signal %bb {producer, tensor_map = 1 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %next = arith.addi %slot, %c1 : i32
      %wrap = arith.cmpi eq, %next, %c2 : i32
      %nslot = arith.select %wrap, %c0, %next : i32
      %flip = arith.xori %phase, %c1 : i32
      %nphase = arith.select %wrap, %flip, %phase : i32
      scf.yield %nslot, %nphase : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  tt.return
}

// With program order [1, 0], program id y varies fastest: x's block is the
// one the cluster shares.
// CHECK-LABEL: tt.func public @ordered
// CHECK-SAME: pallas_gpu.cluster = 2 : i64
// CHECK: pallas_gpu.tma_copy %{{.*}} {multicast, producer, tensor_map = 0 : i64}
// CHECK: pallas_gpu.tma_copy %{{.*}} {producer, tensor_map = 1 : i64}

tt.func public @ordered(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 256, 512>},
                        %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 512, 128>})
    attributes {pallas.launch = #pallas.launch<symbol = "ordered", grid = [4, 2], num_warps = 4, expanded, program_order = [1, 0]>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %rb = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %c32768 = arith.constant 32768 : i32
    %c128i = arith.constant 128 : i32
    %c2 = arith.constant 2 : i32
    %i = tt.get_program_id x : i32
    %j = tt.get_program_id y : i32
    // x[64 i + r, 64 k + c] (row 512 elements), y[64 k + r, 64 j + c] (row 128).
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %re = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tt.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
    %s512 = arith.constant dense<512> : tensor<64x1xi32>
    %s128 = arith.constant dense<128> : tensor<64x1xi32>
    %rx = arith.muli %re, %s512 : tensor<64x1xi32>
    %ry = arith.muli %re, %s128 : tensor<64x1xi32>
    %rxb = tt.broadcast %rx : tensor<64x1xi32> -> tensor<64x64xi32>
    %ryb = tt.broadcast %ry : tensor<64x1xi32> -> tensor<64x64xi32>
    %tx = arith.addi %rxb, %cb : tensor<64x64xi32>
    %ty = arith.addi %ryb, %cb : tensor<64x64xi32>
    %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %px0 = tt.addptr %xs, %tx : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %py0 = tt.addptr %ys, %ty : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %xrow = arith.muli %i, %c32768 : i32
    %ycol = arith.muli %j, %c64 : i32
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      %kx = arith.muli %k, %c64 : i32
      %ox = arith.addi %xrow, %kx : i32
      %oxs = tt.splat %ox : i32 -> tensor<64x64xi32>
      %px = tt.addptr %px0, %oxs : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      %ky = arith.muli %kx, %c128i : i32
      %oy = arith.addi %ycol, %ky : i32
      %oys = tt.splat %oy : i32 -> tensor<64x64xi32>
      %py = tt.addptr %py0, %oys : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      %released = arith.xori %phase, %c1 : i32
      pallas_gpu.wait_released %ba[%slot] phase %released : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %px into %ra[%slot] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      pallas_gpu.wait_released %bb[%slot] phase %released : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %py into %rb[%slot] signal %bb {producer, tensor_map = 1 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %next = arith.addi %slot, %c1 : i32
      %wrap = arith.cmpi eq, %next, %c2 : i32
      %nslot = arith.select %wrap, %c0, %next : i32
      %flip = arith.xori %phase, %c1 : i32
      %nphase = arith.select %wrap, %flip, %phase : i32
      scf.yield %nslot, %nphase : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  tt.return
}

// Every block the producer copies follows program id x: nothing to share.
// CHECK-LABEL: tt.func public @every_block_differs
// CHECK-SAME: pallas_gpu.cluster_unused = "every block the producer copies depends on the program id along grid axis 0"
// CHECK-NOT: multicast
// CHECK: tt.return

tt.func public @every_block_differs(%p: tensor<64x64x!tt.ptr<bf16>>, %q: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "every_block_differs", grid = [4, 2], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tt.get_program_id x : i32
    %is = tt.splat %i : i32 -> tensor<64x64xi32>
    %pi = tt.addptr %p, %is : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %qi = tt.addptr %q, %is : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    pallas_gpu.tma_copy %pi into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
    pallas_gpu.tma_copy %qi into %ra[%c1] signal %ba {producer, tensor_map = 1 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  tt.return
}

// The producer's loop runs longer the larger program id x: the CTAs of a
// cluster would not fill their slots in step.
// CHECK-LABEL: tt.func public @trip_count_differs
// CHECK-SAME: pallas_gpu.cluster_unused = "what the CTAs fill or release depends on the program id along grid axis 0"
// CHECK-NOT: multicast
// CHECK: tt.return

tt.func public @trip_count_differs(%p: tensor<64x64x!tt.ptr<bf16>>, %q: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "trip_count_differs", grid = [4, 2], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tt.get_program_id x : i32
    %ub = arith.addi %i, %c1 : i32
    scf.for %k = %c0 to %ub step %c1 : i32 {
      pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
    }
  }
  tt.return
}

// So do the consumers' loops over the ring: they release the slots.
// CHECK-LABEL: tt.func public @consumer_trip_count_differs
// CHECK-SAME: pallas_gpu.cluster_unused = "what the CTAs fill or release depends on the program id along grid axis 0"
// CHECK-NOT: multicast
// CHECK: tt.return

tt.func public @consumer_trip_count_differs(%p: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "consumer_trip_count_differs", grid = [4, 2], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = tt.get_program_id x : i32
  %ub = arith.addi %i, %c1 : i32
  scf.for %k = %c0 to %ub step %c1 : i32 {
    pallas_gpu.wait_filled %ba[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    pallas_gpu.release_slot %ba[%c0] : !pallas_gpu.slot_barriers<2>
  }
  tt.return
}

// Slot barriers made after the producer starts.
// CHECK-LABEL: tt.func public @late_barriers
// CHECK-SAME: pallas_gpu.cluster_unused = "slot barriers are made after the producer starts"
// CHECK-NOT: multicast
// CHECK: tt.return

tt.func public @late_barriers(%p: tensor<64x64x!tt.ptr<bf16>>, %q: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "late_barriers", grid = [4, 2], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  %late = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  tt.return
}

// Grids whose CTAs do not pair up along the fastest axis: 3 programs, or
// groups of 3 (program_group), in clusters of 2; a grid folded into x; a
// grid of symbolic extent.
// CHECK-LABEL: tt.func public @odd_extent
// CHECK-SAME: pallas_gpu.cluster_unused = "the 3 programs along grid axis 0 do not pair up in clusters of 2"
// CHECK-NOT: multicast
// CHECK-LABEL: tt.func public @odd_group
// CHECK-SAME: pallas_gpu.cluster_unused = "the 4 programs along grid axis 0 (in groups of 3) do not pair up in clusters of 2"
// CHECK-NOT: multicast
// CHECK-LABEL: tt.func public @folded
// CHECK-SAME: pallas_gpu.cluster_unused = "the grid folds into one launch axis"
// CHECK-NOT: multicast
// CHECK-LABEL: tt.func public @symbolic
// CHECK-SAME: pallas_gpu.cluster_unused = "the grid's extents are symbolic"
// CHECK-NOT: multicast

tt.func public @odd_extent(%p: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "odd_extent", grid = [3, 2], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  tt.return
}

tt.func public @odd_group(%p: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "odd_group", grid = [4, 2], expanded, program_order = [0, 1], program_group = 3>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  tt.return
}

tt.func public @folded(%p: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "folded", grid = [2, 2, 2, 2], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  tt.return
}

tt.func public @symbolic(%p: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "symbolic", sizes = ["N"], grid = [?], grid_sizes = ["cdiv(N, 64)"], expanded>} {
  %ra = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %ba = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ra[%c0] signal %ba {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  tt.return
}

// No producer, or no launch.
// CHECK-LABEL: tt.func public @no_producer
// CHECK-SAME: pallas_gpu.cluster_unused = "no producer warpgroup fills its rings through the TMA"
// CHECK-LABEL: tt.func public @no_launch
// CHECK-SAME: pallas_gpu.cluster_unused = "the kernel has no launch of its own"
tt.func public @no_producer(%p: tensor<64x64x!tt.ptr<bf16>>)
    attributes {pallas.launch = #pallas.launch<symbol = "no_producer", grid = [4, 2], expanded>} {
  %r = tt.load %p : tensor<64x64x!tt.ptr<bf16>>
  tt.return
}
tt.func public @no_launch() {
  tt.return
}
