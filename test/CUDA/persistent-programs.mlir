// pallas-persistent-programs: with `ctas` > 0, a kernel whose producer
// warpgroup and consumers each have one ring loop (pallas_gpu.ring_slot),
// on a grid of more programs than `ctas`, starts `ctas` CTAs (the
// function's pallas_gpu.persistent_ctas), each looping over programs
// blockIdx.x, blockIdx.x + gridDim.x, ... in the producer and in the
// consumers alike: the program ids come from the loop's index as the
// launch numbers its blocks, the ring's slot and parity carry from program
// to program, and the consumers meet at a barrier after each. Kernels that
// do not fit that shape, or need no more CTAs than `ctas`, stay as they are.
// RUN: pallas-opt %s --pallas-persistent-programs=ctas=3 | FileCheck %s
// RUN: pallas-opt %s --pallas-persistent-programs | FileCheck %s --check-prefix=OFF

// OFF-NOT: persistent_ctas
// OFF-NOT: gpu.block_id

// 4 x 2 programs on 3 CTAs: program linear = x + 4 y.
// CHECK-LABEL: tt.func public @gemm
// CHECK-SAME: pallas_gpu.persistent_ctas = 3 : i64
// CHECK-NEXT: %[[RING:.*]] = pallas_gpu.alloc_ring
// CHECK-NEXT: %[[BARS:.*]] = pallas_gpu.alloc_slot_barriers
// CHECK-NEXT: pallas_gpu.produce {
// CHECK-NEXT: %[[BX:.*]] = gpu.block_id x
// CHECK-NEXT: %[[CTA:.*]] = arith.index_castui %[[BX]] : index to i32
// CHECK-NEXT: %[[GX:.*]] = gpu.grid_dim x
// CHECK-NEXT: %[[CTAS:.*]] = arith.index_castui %[[GX]] : index to i32
// CHECK-NEXT: %[[PROGRAMS:.*]] = arith.constant 8 : i32
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT: scf.for %[[LIN:.*]] = %[[CTA]] to %[[PROGRAMS]] step %[[CTAS]] iter_args(%[[S:.*]] = %[[Z0]], %[[PH:.*]] = %[[Z1]]) -> (i32, i32)
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[X:.*]] = arith.remui %[[LIN]], %[[C4]] : i32
// CHECK-NEXT: %[[C4B:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[Y:.*]] = arith.divui %[[LIN]], %[[C4B]] : i32
// CHECK-NOT: tt.get_program_id
// CHECK: arith.addi %[[X]], %[[Y]] : i32
// CHECK: %[[FILL:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[S]], %{{.*}} = %[[PH]]) -> (i32, i32)
// CHECK: pallas_gpu.tma_copy
// CHECK: } {pallas_gpu.ring_slot = 0 : i64}
// CHECK-NEXT: scf.yield %[[FILL]]#0, %[[FILL]]#1 : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
// The consumers: the same loop over the programs, the accumulator's loop
// carrying the ring's slot and parity (operands 1 and 2), then a barrier.
// CHECK-NEXT: %[[BX2:.*]] = gpu.block_id x
// CHECK-NEXT: %[[CTA2:.*]] = arith.index_castui %[[BX2]] : index to i32
// CHECK-NEXT: %[[GX2:.*]] = gpu.grid_dim x
// CHECK-NEXT: %[[CTAS2:.*]] = arith.index_castui %[[GX2]] : index to i32
// CHECK-NEXT: %[[PROGRAMS2:.*]] = arith.constant 8 : i32
// CHECK: scf.for %[[LIN2:.*]] = %[[CTA2]] to %[[PROGRAMS2]] step %[[CTAS2]] iter_args(%[[S2:.*]] = %{{.*}}, %[[PH2:.*]] = %{{.*}}) -> (i32, i32)
// CHECK: %[[X2:.*]] = arith.remui %[[LIN2]]
// CHECK: %[[Y2:.*]] = arith.divui %[[LIN2]]
// CHECK-NOT: tt.get_program_id
// CHECK: %[[ACCS:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[S2]], %{{.*}} = %[[PH2]]) -> (tensor<64x64xf32>, i32, i32)
// CHECK: } {pallas_gpu.ring_slot = 1 : i64}
// CHECK-NEXT: arith.addi %[[X2]], %[[Y2]] : i32
// CHECK: tt.store %{{.*}}, %[[ACCS]]#0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield %[[ACCS]]#1, %[[ACCS]]#2 : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: tt.return
tt.func public @gemm(%p: tensor<64x64x!tt.ptr<bf16>>, %o: tensor<64x64x!tt.ptr<f32>>)
    attributes {pallas.launch = #pallas.launch<symbol = "gemm", grid = [4, 2], expanded>} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %i = tt.get_program_id x : i32
    %j = tt.get_program_id y : i32
    %ij = arith.addi %i, %j : i32
    %off = tt.splat %ij : i32 -> tensor<64x64xi32>
    %src = tt.addptr %p, %off : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      pallas_gpu.wait_released %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %src into %ring[%slot] signal %bars {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %n = arith.xori %slot, %c1 : i32
      %q = arith.xori %phase, %n : i32
      scf.yield %n, %q : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %i = tt.get_program_id x : i32
  %j = tt.get_program_id y : i32
  %r:3 = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero, %slot = %c0, %phase = %c0) -> (tensor<64x64xf32>, i32, i32) : i32 {
    pallas_gpu.wait_filled %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
    %t = pallas_gpu.ring_read %ring[%slot] : !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>> -> tensor<64x64xbf16>
    %w = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
    %a = arith.addf %acc, %w : tensor<64x64xf32>
    pallas_gpu.release_slot %bars[%slot] : !pallas_gpu.slot_barriers<2>
    %n = arith.xori %slot, %c1 : i32
    %q = arith.xori %phase, %n : i32
    scf.yield %a, %n, %q : tensor<64x64xf32>, i32, i32
  } {pallas_gpu.ring_slot = 1 : i64}
  %ij = arith.addi %i, %j : i32
  %off = tt.splat %ij : i32 -> tensor<64x64xi32>
  %dst = tt.addptr %o, %off : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
  tt.store %dst, %r#0 : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// With program order [1, 0], y varies fastest: y = linear mod 2,
// x = linear / 2.
// CHECK-LABEL: tt.func public @ordered
// CHECK-SAME: pallas_gpu.persistent_ctas = 3 : i64
// CHECK: pallas_gpu.produce
// CHECK: pallas_gpu.tma_copy
// CHECK: gpu.block_id x
// CHECK: scf.for %[[LIN:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[Y:.*]] = arith.remui %[[LIN]], %{{.*}} : i32
// CHECK: %[[X:.*]] = arith.divui %[[LIN]], %{{.*}} : i32
// CHECK: %[[XY:.*]] = arith.subi %[[X]], %[[Y]] : i32
// CHECK-NEXT: tt.splat %[[XY]]
tt.func public @ordered(%p: tensor<64x64x!tt.ptr<bf16>>, %o: tensor<64x64x!tt.ptr<i32>>)
    attributes {pallas.launch = #pallas.launch<symbol = "ordered", grid = [4, 2], expanded, program_order = [1, 0]>} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      pallas_gpu.wait_released %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %p into %ring[%slot] signal %bars {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %n = arith.xori %slot, %c1 : i32
      scf.yield %n, %phase : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %i = tt.get_program_id x : i32
  %j = tt.get_program_id y : i32
  %r:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
    pallas_gpu.wait_filled %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
    pallas_gpu.release_slot %bars[%slot] : !pallas_gpu.slot_barriers<2>
    %n = arith.xori %slot, %c1 : i32
    scf.yield %n, %phase : i32, i32
  } {pallas_gpu.ring_slot = 0 : i64}
  %ij = arith.subi %i, %j : i32
  %v = tt.splat %ij : i32 -> tensor<64x64xi32>
  tt.store %o, %v : tensor<64x64x!tt.ptr<i32>>
  tt.return
}

// In clusters of two CTAs (pallas-cluster-multicast), a multiple of two
// CTAs: 2 of the 3.
// CHECK-LABEL: tt.func public @cluster
// CHECK-SAME: pallas_gpu.persistent_ctas = 2 : i64
// CHECK: gpu.block_id x
tt.func public @cluster(%p: tensor<64x64x!tt.ptr<bf16>>, %o: tensor<64x64x!tt.ptr<i32>>)
    attributes {pallas.launch = #pallas.launch<symbol = "cluster", grid = [4, 2], expanded>, pallas_gpu.cluster = 2 : i64} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      pallas_gpu.wait_released %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %p into %ring[%slot] signal %bars {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %n = arith.xori %slot, %c1 : i32
      scf.yield %n, %phase : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %i = tt.get_program_id x : i32
  %j = tt.get_program_id y : i32
  %r:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
    pallas_gpu.wait_filled %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
    pallas_gpu.release_slot %bars[%slot] : !pallas_gpu.slot_barriers<2>
    %n = arith.xori %slot, %c1 : i32
    scf.yield %n, %phase : i32, i32
  } {pallas_gpu.ring_slot = 0 : i64}
  %ij = arith.subi %i, %j : i32
  %v = tt.splat %ij : i32 -> tensor<64x64xi32>
  tt.store %o, %v : tensor<64x64x!tt.ptr<i32>>
  tt.return
}

// Left alone: no more programs than CTAs; a ring allocated after the
// producer; no producer.
// CHECK-LABEL: tt.func public @few_programs
// CHECK-NOT: persistent_ctas
// CHECK-NOT: gpu.block_id
// CHECK: tt.get_program_id x
// CHECK-LABEL: tt.func public @late_ring
// CHECK-NOT: persistent_ctas
// CHECK-NOT: gpu.block_id
// CHECK: tt.get_program_id x
// CHECK-LABEL: tt.func public @no_producer
// CHECK-NOT: persistent_ctas
// CHECK-NOT: gpu.block_id
// CHECK: tt.get_program_id x
tt.func public @few_programs(%p: tensor<64x64x!tt.ptr<bf16>>, %o: tensor<64x64x!tt.ptr<i32>>)
    attributes {pallas.launch = #pallas.launch<symbol = "few_programs", grid = [3], expanded>} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      pallas_gpu.wait_released %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %p into %ring[%slot] signal %bars {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %n = arith.xori %slot, %c1 : i32
      scf.yield %n, %phase : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %i = tt.get_program_id x : i32
  %j = tt.get_program_id y : i32
  %r:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
    pallas_gpu.wait_filled %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
    pallas_gpu.release_slot %bars[%slot] : !pallas_gpu.slot_barriers<2>
    %n = arith.xori %slot, %c1 : i32
    scf.yield %n, %phase : i32, i32
  } {pallas_gpu.ring_slot = 0 : i64}
  %ij = arith.subi %i, %j : i32
  %v = tt.splat %ij : i32 -> tensor<64x64xi32>
  tt.store %o, %v : tensor<64x64x!tt.ptr<i32>>
  tt.return
}
tt.func public @late_ring(%p: tensor<64x64x!tt.ptr<bf16>>, %o: tensor<64x64x!tt.ptr<i32>>)
    attributes {pallas.launch = #pallas.launch<symbol = "late_ring", grid = [4, 2], expanded>} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %f:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
      pallas_gpu.wait_released %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
      pallas_gpu.tma_copy %p into %ring[%slot] signal %bars {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
      %n = arith.xori %slot, %c1 : i32
      scf.yield %n, %phase : i32, i32
    } {pallas_gpu.ring_slot = 0 : i64}
  }
  %late = pallas_gpu.alloc_ring : <1, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %i = tt.get_program_id x : i32
  %j = tt.get_program_id y : i32
  %r:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
    pallas_gpu.wait_filled %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
    pallas_gpu.release_slot %bars[%slot] : !pallas_gpu.slot_barriers<2>
    %n = arith.xori %slot, %c1 : i32
    scf.yield %n, %phase : i32, i32
  } {pallas_gpu.ring_slot = 0 : i64}
  %ij = arith.subi %i, %j : i32
  %v = tt.splat %ij : i32 -> tensor<64x64xi32>
  tt.store %o, %v : tensor<64x64x!tt.ptr<i32>>
  tt.return
}
tt.func public @no_producer(%p: tensor<64x64x!tt.ptr<bf16>>, %o: tensor<64x64x!tt.ptr<i32>>)
    attributes {pallas.launch = #pallas.launch<symbol = "no_producer", grid = [4, 2], expanded>} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %i = tt.get_program_id x : i32
  %j = tt.get_program_id y : i32
  %r:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%slot = %c0, %phase = %c0) -> (i32, i32) : i32 {
    pallas_gpu.wait_filled %bars[%slot] phase %phase : !pallas_gpu.slot_barriers<2>
    pallas_gpu.release_slot %bars[%slot] : !pallas_gpu.slot_barriers<2>
    %n = arith.xori %slot, %c1 : i32
    scf.yield %n, %phase : i32, i32
  } {pallas_gpu.ring_slot = 0 : i64}
  %ij = arith.subi %i, %j : i32
  %v = tt.splat %ij : i32 -> tensor<64x64xi32>
  tt.store %o, %v : tensor<64x64x!tt.ptr<i32>>
  tt.return
}
