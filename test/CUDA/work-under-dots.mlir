// RUN: pallas-opt %s -split-input-file --pallas-work-under-dots | FileCheck %s

// pallas-work-under-dots: a row broadcast into the wgmma layout after a
// dot_wait, needing nothing the wait gives (attention backward's -lse over
// the transposed scores), moves above the wait with the pure ops it needs,
// here beside two waited 128 x 64 results (64 registers a thread, the
// most it stands beside); what reads the waited results, and broadcasts
// into other layouts, stay below.
// CHECK-LABEL: tt.func @lse_under_dots
// CHECK: scf.for
// CHECK: tt.dot {{.*}} {pallas_gpu.async}
// CHECK-NEXT: tt.dot {{.*}} {pallas_gpu.async}
// CHECK-NEXT: arith.negf
// CHECK-NEXT: tt.expand_dims
// CHECK-NEXT: %[[L:.*]] = tt.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
// CHECK-NEXT: %[[W:.*]]:2 = pallas_gpu.dot_wait 0
// CHECK-NEXT: tt.splat
// CHECK-NEXT: tt.broadcast %{{.*}} : tensor<1x64xi32> -> tensor<128x64xi32>
// CHECK-NEXT: arith.addf %[[W]]#0, %[[L]]
#w = #pallas_gpu.wgmma<warps = 8>
!ring = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!kring = !pallas_gpu.ring<1, tensor<128x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @lse_under_dots(%lse0: tensor<64xf32>, %next: tensor<64xf32>, %i0: i32)
    -> (tensor<128x64xf32, #w>, tensor<128x64xi32>)
    attributes {pallas.launch = #pallas.launch<symbol = "lse_under_dots", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #w>
  %izero = arith.constant dense<0> : tensor<128x64xi32>
  %qr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero, %lse = %lse0, %idx = %izero)
      -> (tensor<128x64xf32, #w>, tensor<64xf32>, tensor<128x64xi32>) : i32 {
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<128x128xbf16>
    %k = pallas_gpu.ring_read %kr[%c0] : !kring -> tensor<128x64xbf16>
    %s = tt.dot %q, %k, %zero {pallas_gpu.async} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #w>
    %dp = tt.dot %q, %k, %zero {pallas_gpu.async} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #w>
    %sw, %dpw = pallas_gpu.dot_wait 0, %s, %dp : tensor<128x64xf32, #w>, tensor<128x64xf32, #w>
    %row = tt.splat %i : i32 -> tensor<1x64xi32>
    %rows = tt.broadcast %row : tensor<1x64xi32> -> tensor<128x64xi32>
    %neg = arith.negf %lse : tensor<64xf32>
    %e = tt.expand_dims %neg {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %b = tt.broadcast %e : tensor<1x64xf32> -> tensor<128x64xf32, #w>
    %p0 = arith.addf %sw, %b : tensor<128x64xf32, #w>
    %p = arith.mulf %p0, %dpw : tensor<128x64xf32, #w>
    scf.yield %p, %next, %rows : tensor<128x64xf32, #w>, tensor<64xf32>, tensor<128x64xi32>
  }
  tt.return %r#0, %r#2 : tensor<128x64xf32, #w>, tensor<128x64xi32>
}

// -----

// Beside waited results of more than 64 registers a thread (two 128 x 128
// accumulators over 8 warps: 128), the broadcast's registers would spill:
// it stays below the wait.
// CHECK-LABEL: tt.func @too_many_registers
// CHECK: pallas_gpu.dot_wait 0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: tt.expand_dims
// CHECK-NEXT: tt.broadcast
#w = #pallas_gpu.wgmma<warps = 8>
!ring = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @too_many_registers(%lse: tensor<128xf32>) -> tensor<128x128xf32, #w>
    attributes {pallas.launch = #pallas.launch<symbol = "too_many_registers", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #w>
  %qr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<128x128xbf16>
  %s = tt.dot %q, %q, %zero {pallas_gpu.async} : tensor<128x128xbf16> * tensor<128x128xbf16> -> tensor<128x128xf32, #w>
  %d = tt.dot %q, %q, %zero {pallas_gpu.async} : tensor<128x128xbf16> * tensor<128x128xbf16> -> tensor<128x128xf32, #w>
  %w:2 = pallas_gpu.dot_wait 0, %s, %d : tensor<128x128xf32, #w>, tensor<128x128xf32, #w>
  %neg = arith.negf %lse : tensor<128xf32>
  %e = tt.expand_dims %neg {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  %b = tt.broadcast %e : tensor<1x128xf32> -> tensor<128x128xf32, #w>
  %p = arith.addf %w#0, %b : tensor<128x128xf32, #w>
  %r = arith.mulf %p, %w#1 : tensor<128x128xf32, #w>
  tt.return %r : tensor<128x128xf32, #w>
}

// -----

// A broadcast of something the wait gives stays below it.
// CHECK-LABEL: tt.func @needs_the_wait
// CHECK: pallas_gpu.dot_wait 0
// CHECK-NEXT: tensor.extract_slice
// CHECK-NEXT: tt.broadcast
#w = #pallas_gpu.wgmma<warps = 8>
!ring = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!kring = !pallas_gpu.ring<1, tensor<128x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @needs_the_wait() -> tensor<128x64xf32, #w>
    attributes {pallas.launch = #pallas.launch<symbol = "needs_the_wait", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #w>
  %qr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<128x128xbf16>
  %k = pallas_gpu.ring_read %kr[%c0] : !kring -> tensor<128x64xbf16>
  %s = tt.dot %q, %k, %zero {pallas_gpu.async} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #w>
  %sw = pallas_gpu.dot_wait 0, %s : tensor<128x64xf32, #w>
  %sl = tensor.extract_slice %sw[0, 0] [1, 64] [1, 1] : tensor<128x64xf32, #w> to tensor<1x64xf32>
  %b = tt.broadcast %sl : tensor<1x64xf32> -> tensor<128x64xf32, #w>
  %p = arith.addf %sw, %b : tensor<128x64xf32, #w>
  tt.return %p : tensor<128x64xf32, #w>
}

// -----

// A waited dot reading an operand that is not in a ring (here a tile
// computed in registers, which reaches wgmma through the scratch area) may
// still be reading it: an exchange could overwrite it. The broadcast stays.
// CHECK-LABEL: tt.func @waits_for_a_scratch_reader
// CHECK: pallas_gpu.dot_wait 0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: tt.expand_dims
// CHECK-NEXT: tt.broadcast
#w = #pallas_gpu.wgmma<warps = 8>
!kring = !pallas_gpu.ring<1, tensor<128x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @waits_for_a_scratch_reader(%a: tensor<128x128xbf16>, %lse: tensor<64xf32>) -> tensor<128x64xf32, #w>
    attributes {pallas.launch = #pallas.launch<symbol = "waits_for_a_scratch_reader", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #w>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !kring -> tensor<128x64xbf16>
  %s = tt.dot %a, %k, %zero {pallas_gpu.async} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #w>
  %sw = pallas_gpu.dot_wait 0, %s : tensor<128x64xf32, #w>
  %neg = arith.negf %lse : tensor<64xf32>
  %e = tt.expand_dims %neg {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %b = tt.broadcast %e : tensor<1x64xf32> -> tensor<128x64xf32, #w>
  %p = arith.addf %sw, %b : tensor<128x64xf32, #w>
  tt.return %p : tensor<128x64xf32, #w>
}
