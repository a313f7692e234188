// pallas-async-copies with `tma` (sm_90a): a tt.async_copy load the TMA can
// make (an unmasked tile of whole rows of an array parameter) goes by the
// TMA into a one-buffer ring with the 128-byte swizzle and an mbarrier of
// its own (pallas_gpu.alloc_slot_barriers tma): the threads read the
// phase the copy will complete (pallas_gpu.filled_phase) and meet at a
// barrier (everyone done with the buffer), the copy is issued
// (pallas_gpu.tma_copy, through a tensor map the function lists), and the
// readers wait for that phase (pallas_gpu.wait_filled) where the cp.async
// wait would be. Other copies keep cp.async (async-copies.mlir).
// RUN: pallas-opt %s --pallas-async-copies="shared-bytes=166912 tma=true" | FileCheck %s

// CHECK-LABEL: tt.func public @overlap
// CHECK-SAME: pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 64, row_elements = 128, elem_bytes = 4, box_rows = 8, box_cols = 32>, #pallas_gpu.tensor_map<param = 1, rows = 64, row_elements = 128, elem_bytes = 4, box_rows = 8, box_cols = 32>]
// CHECK-NEXT: %[[RY:.*]] = pallas_gpu.alloc_ring : <1, tensor<8x128xf32, #pallas_gpu.shared<swizzle_128b>>>
// CHECK-NEXT: %[[BY:.*]] = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<1>
// CHECK-NEXT: %[[RX:.*]] = pallas_gpu.alloc_ring : <1, tensor<8x128xf32, #pallas_gpu.shared<swizzle_128b>>>
// CHECK-NEXT: %[[BX:.*]] = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<1>
// CHECK: %[[XP:.*]] = tt.addptr %{{.*}} : tensor<8x128x!tt.ptr<f32>>
// CHECK: %[[YP:.*]] = tt.addptr %{{.*}} : tensor<8x128x!tt.ptr<f32>>
// CHECK: %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[PX:.*]] = pallas_gpu.filled_phase %[[BX]][%[[S]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: pallas_gpu.tma_copy %[[XP]] into %[[RX]][%[[S]]] signal %[[BX]] {tensor_map = 0 : i64}
// CHECK-NEXT: %[[T:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[PY:.*]] = pallas_gpu.filled_phase %[[BY]][%[[T]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: pallas_gpu.tma_copy %[[YP]] into %[[RY]][%[[T]]] signal %[[BY]] {tensor_map = 1 : i64}
// CHECK-NEXT: pallas_gpu.wait_filled %[[BY]][%[[T]]] phase %[[PY]]
// CHECK-NEXT: %[[B:.*]] = pallas_gpu.ring_read %[[RY]][%[[T]]] : !pallas_gpu.ring<1, tensor<8x128xf32, #pallas_gpu.shared<swizzle_128b>>> -> tensor<8x128xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[B]]
// CHECK-NEXT: pallas_gpu.wait_filled %[[BX]][%[[S]]] phase %[[PX]]
// CHECK-NEXT: %[[A:.*]] = pallas_gpu.ring_read %[[RX]][%[[S]]]
// CHECK-NEXT: arith.addf %[[A]], %[[E]]
// CHECK-NOT: async_copy
// CHECK-NOT: tt.load
// CHECK: tt.return
tt.func public @overlap(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %y: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>})
    attributes {pallas.launch = #pallas.launch<symbol = "overlap", grid = [1], expanded>} {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %op = tt.addptr %os, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %a = tt.load %xp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %b = tt.load %yp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %eb = math.exp %b : tensor<8x128xf32>
  %s = arith.addf %a, %eb : tensor<8x128xf32>
  tt.store %op, %s : tensor<8x128x!tt.ptr<f32>>
  tt.return
}

// y's copy under a mask of the kernel's own: cp.async (its mask kept) into
// a padded-rows buffer; x's by the TMA.
// CHECK-LABEL: tt.func public @masked
// CHECK-SAME: pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0,
// CHECK-NOT: param = 1
// CHECK-NEXT: %[[RY:.*]] = pallas_gpu.alloc_ring : <1, tensor<8x128xf32, #pallas_gpu.shared<padded_rows>>>
// CHECK-NEXT: pallas_gpu.alloc_ring : <1, tensor<8x128xf32, #pallas_gpu.shared<swizzle_128b>>>
// CHECK: pallas_gpu.tma_copy
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RY]][%{{.*}}] mask %arg3
// CHECK-NEXT: pallas_gpu.async_commit
// CHECK-NEXT: pallas_gpu.async_wait 0
tt.func public @masked(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %y: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>}, %m: tensor<8x128xi1>)
    attributes {pallas.launch = #pallas.launch<symbol = "masked", grid = [1], expanded>} {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %op = tt.addptr %os, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %a = tt.load %xp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %b = tt.load %yp, %m {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %eb = math.exp %b : tensor<8x128xf32>
  %s = arith.addf %a, %eb : tensor<8x128xf32>
  tt.store %op, %s : tensor<8x128x!tt.ptr<f32>>
  tt.return
}
