// A dot operand loaded once before a scan split into loops (a causal
// scan's trips before a bound and after it, as pallas-merge-row-programs
// writes it), read by the dots of both, is copied into one one-buffer ring
// before the first and read in place by both: not held in registers across
// them. Each loop's own ring is set up after the loop before it is done.
// RUN: pallas-opt %s --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=232448" --canonicalize | FileCheck %s

// CHECK: %[[RB:.*]] = pallas_gpu.alloc_ring : <1, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
// CHECK-NEXT: pallas_gpu.async_copy %{{.*}} into %[[RB]][%c0_i32] :
// CHECK-NOT: pallas_gpu.alloc_ring : <1,
// CHECK: scf.for
// CHECK-NOT: tt.load %{{.*}} : tensor<32x64x
// CHECK: pallas_gpu.ring_read %[[RB]][%c0_i32]
// CHECK: scf.yield
// The second loop's own ring is set up after the wait for the first loop's
// copies, not hoisted above it: from there on it may take the first ring's
// memory (one ring's worth of shared memory, not two).
// CHECK: } {pallas_gpu.pipelined}
// CHECK-NEXT: pallas_gpu.async_wait 0
// CHECK-NEXT: pallas_gpu.alloc_ring : <2, tensor<64x32xbf16
// CHECK: scf.for
// CHECK-NOT: tt.load %{{.*}} : tensor<32x64x
// CHECK: pallas_gpu.ring_read %[[RB]][%c0_i32]
// CHECK: scf.yield

// K of 32 per iteration read against the same 32 x 64 block of y, in two
// loops over halves of K.
module {
  tt.func public @invariant_b_two_loops(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32},
                           %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32},
                           %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "dot_loop", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %r32 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    // x[i, k]: i * 128 + k
    %xi = tt.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c128t = arith.constant dense<128> : tensor<64x1xi32>
    %xrow = arith.muli %xi, %c128t : tensor<64x1xi32>
    %xk = tt.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %xrowb = tt.broadcast %xrow : tensor<64x1xi32> -> tensor<64x32xi32>
    %xkb = tt.broadcast %xk : tensor<1x32xi32> -> tensor<64x32xi32>
    %xoff = arith.addi %xrowb, %xkb : tensor<64x32xi32>
    %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<64x32x!tt.ptr<bf16>>
    %xp = tt.addptr %xs, %xoff : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    // y[k, j]: k * 64 + j
    %yk = tt.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c64t = arith.constant dense<64> : tensor<32x1xi32>
    %yrow = arith.muli %yk, %c64t : tensor<32x1xi32>
    %yj = tt.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %yrowb = tt.broadcast %yrow : tensor<32x1xi32> -> tensor<32x64xi32>
    %yjb = tt.broadcast %yj : tensor<1x64xi32> -> tensor<32x64xi32>
    %yoff = arith.addi %yrowb, %yjb : tensor<32x64xi32>
    %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
    %yp = tt.addptr %ys, %yoff : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    %b = tt.load %yp : tensor<32x64x!tt.ptr<bf16>>
    %c2 = arith.constant 2 : i32
    %acc0 = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
      %kx = arith.muli %k, %c32 : i32
      %kxs = tt.splat %kx : i32 -> tensor<64x32xi32>
      %xpk = tt.addptr %xp, %kxs : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %a = tt.load %xpk : tensor<64x32x!tt.ptr<bf16>>
      %d = tt.dot %a, %b, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %acc = scf.for %k = %c2 to %c4 step %c1 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
      %kx = arith.muli %k, %c32 : i32
      %kxs = tt.splat %kx : i32 -> tensor<64x32xi32>
      %xpk = tt.addptr %xp, %kxs : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %a = tt.load %xpk : tensor<64x32x!tt.ptr<bf16>>
      %d = tt.dot %a, %b, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %oi = tt.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c64o = arith.constant dense<64> : tensor<64x1xi32>
    %orow = arith.muli %oi, %c64o : tensor<64x1xi32>
    %orowb = tt.broadcast %orow : tensor<64x1xi32> -> tensor<64x64xi32>
    %ojb = tt.broadcast %yj : tensor<1x64xi32> -> tensor<64x64xi32>
    %ooff = arith.addi %orowb, %ojb : tensor<64x64xi32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %op = tt.addptr %os, %ooff : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    tt.store %op, %acc : tensor<64x64x!tt.ptr<f32>>
    tt.return
  }
}
