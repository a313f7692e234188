// convert-tile-to-nvvm on the pallas_gpu ops alone. A ring read by
// something other than a dot: row-major buffers (rows padded by 16 bytes),
// whole 16-byte cp.async pieces where the addresses are known contiguous
// and aligned, the tile read back into registers after the wait (a
// 16-byte load per thread's chunk of 4 elements in a row). Where
// nothing is known of the addresses (a stride of 2 elements), each element
// is loaded and stored at once instead.
// RUN: pallas-opt %s --convert-tile-to-nvvm --canonicalize | FileCheck %s

// CHECK-LABEL: gpu.func @ring_sum
// CHECK: gpu.barrier
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<1>

// CHECK-LABEL: gpu.func @ring_strided
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: nvvm.cp.async.commit.group
module {
  tt.func public @ring_sum(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "ring_sum", grid = [1], num_warps = 1>} {
    %c0 = arith.constant 0 : i32
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %re = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %rb = tt.broadcast %re : tensor<1x32xi32> -> tensor<8x32xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x32x!tt.ptr<f32>>
    %p = tt.addptr %xs, %rb : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
    %ring = pallas_gpu.alloc_ring : <2, tensor<8x32xf32>>
    pallas_gpu.async_copy %p into %ring[%c0] : tensor<8x32x!tt.ptr<f32>>, !pallas_gpu.ring<2, tensor<8x32xf32>>
    pallas_gpu.async_commit
    pallas_gpu.async_wait 0
    %v = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<8x32xf32>> -> tensor<8x32xf32>
    %w = arith.addf %v, %v : tensor<8x32xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x32x!tt.ptr<f32>>
    %q = tt.addptr %os, %rb : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
    tt.store %q, %w : tensor<8x32x!tt.ptr<f32>>
    tt.return
  }
  tt.func public @ring_strided(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "ring_strided", grid = [1], num_warps = 1>} {
    %c0 = arith.constant 0 : i32
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %re = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %rb = tt.broadcast %re : tensor<1x32xi32> -> tensor<8x32xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x32x!tt.ptr<f32>>
    %two = arith.constant dense<2> : tensor<8x32xi32>
    %strided = arith.muli %rb, %two : tensor<8x32xi32>
    %p = tt.addptr %xs, %strided : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
    %ring = pallas_gpu.alloc_ring : <2, tensor<8x32xf32>>
    pallas_gpu.async_copy %p into %ring[%c0] : tensor<8x32x!tt.ptr<f32>>, !pallas_gpu.ring<2, tensor<8x32xf32>>
    pallas_gpu.async_commit
    pallas_gpu.async_wait 0
    %v = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<8x32xf32>> -> tensor<8x32xf32>
    %w = arith.addf %v, %v : tensor<8x32xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x32x!tt.ptr<f32>>
    %q = tt.addptr %os, %rb : tensor<8x32x!tt.ptr<f32>>, tensor<8x32xi32>
    tt.store %q, %w : tensor<8x32x!tt.ptr<f32>>
    tt.return
  }
}
