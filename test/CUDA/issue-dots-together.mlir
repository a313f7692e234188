// RUN: pallas-opt %s -split-input-file --pallas-issue-dots-together | FileCheck %s

// pallas-issue-dots-together: in a loop body, a wgmma dot reading ring
// tiles and nothing an earlier such dot computes moves up beside it, with
// what it needs from the body (its slot's wait and read, its accumulator's
// initial value); both are issued without waiting and waited for once.
// Attention backward's dK/dV scan: S = Q K^T, then dV += P^T dO (A through
// scratch: stays), then dP = dO V^T - delta, which joins S. dP's
// accumulator start (0 - delta's row broadcast), which reads no ring, goes
// before S's issue, copied into registers of its own there (its values
// repeat).
// CHECK-LABEL: tt.func @scores_and_dp
// CHECK: scf.for
// CHECK: pallas_gpu.wait_filled %[[QB:.*]][
// CHECK-NEXT: %[[Q:.*]] = pallas_gpu.ring_read
// CHECK-NEXT: %[[DB:.*]] = tt.broadcast
// CHECK-NEXT: %[[D:.*]] = arith.subf %{{.*}}, %[[DB]]
// CHECK-NEXT: %[[DR:.*]] = pallas_gpu.own_registers %[[D]]
// CHECK-NEXT: %[[S:.*]] = tt.dot %[[Q]], %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK-NEXT: pallas_gpu.wait_filled %[[DOB:.*]][
// CHECK-NEXT: %[[DO:.*]] = pallas_gpu.ring_read
// CHECK-NEXT: %[[DP:.*]] = tt.dot %[[DO]], %{{.*}}, %[[DR]] {pallas_gpu.async}
// CHECK-NEXT: %[[W:.*]]:2 = pallas_gpu.dot_wait 0, %[[S]], %[[DP]]
// CHECK-NEXT: math.exp2 %[[W]]#0
// CHECK: tt.dot %{{.*}}, %[[DO]], %{{.*}} :
// CHECK-NEXT: pallas_gpu.release_slot %[[DOB]]
// CHECK: arith.mulf %{{.*}}, %[[W]]#1
#wg = #pallas_gpu.wgmma<warps = 8, column_groups = 2>
#rows = #pallas_gpu.wgmma<warps = 8>
!tile = tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @scores_and_dp(%delta: tensor<1x128xf32>) -> (tensor<128x128xf32, #rows>, tensor<64x128xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "scores_and_dp", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #rows>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %dor = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %dob = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %vr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %v = pallas_gpu.ring_read %vr[%c0] : !whole -> tensor<128x128xbf16>
  %vt = tt.trans %v {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %acc0, %last = %zero) -> (tensor<128x128xf32, #rows>, tensor<64x128xf32>) : i32 {
    %z = tensor.cast %zero : tensor<64x128xf32> to tensor<64x128xf32, #wg>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %s = tt.dot %q, %kt, %z : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    %p = math.exp2 %s : tensor<64x128xf32, #wg>
    %pb = arith.truncf %p : tensor<64x128xf32, #wg> to tensor<64x128xbf16, #wg>
    %pp = tensor.cast %pb : tensor<64x128xbf16, #wg> to tensor<64x128xbf16>
    %pt = tt.trans %pp {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    pallas_gpu.wait_filled %dob[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %do = pallas_gpu.ring_read %dor[%c0] : !ring -> tensor<64x128xbf16>
    %dv = tt.dot %pt, %do, %acc : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    %db = tt.broadcast %delta : tensor<1x128xf32> -> tensor<64x128xf32, #wg>
    %d = arith.subf %z, %db : tensor<64x128xf32, #wg>
    %dp = tt.dot %do, %vt, %d : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    pallas_gpu.release_slot %dob[%c0] : !pallas_gpu.slot_barriers<2>
    %ds = arith.mulf %p, %dp : tensor<64x128xf32, #wg>
    pallas_gpu.release_slot %qb[%c0] : !pallas_gpu.slot_barriers<2>
    %out = tensor.cast %ds : tensor<64x128xf32, #wg> to tensor<64x128xf32>
    scf.yield %dv, %out : tensor<128x128xf32, #rows>, tensor<64x128xf32>
  }
  tt.return %r#0, %r#1 : tensor<128x128xf32, #rows>, tensor<64x128xf32>
}

// -----

// A dot that reads an earlier one's result, or whose operands are not all
// in rings, stays where it is and waits for itself; so does one after a
// slot is released (its slot's wait must not move above the release).
// CHECK-LABEL: tt.func @stays
// CHECK-NOT: pallas_gpu.async
// CHECK-NOT: pallas_gpu.dot_wait
// CHECK: tt.return
#wg = #pallas_gpu.wgmma<warps = 8, column_groups = 2>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @stays(%x: tensor<64x128xbf16>) -> tensor<64x128xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "stays", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%last = %zero) -> (tensor<64x128xf32>) : i32 {
    %z = tensor.cast %zero : tensor<64x128xf32> to tensor<64x128xf32, #wg>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %s = tt.dot %q, %k, %z : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    // Reads the first dot's result (its accumulator).
    %t = tt.dot %q, %k, %s : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    // A in registers.
    %u = tt.dot %x, %k, %z : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    pallas_gpu.release_slot %qb[%c0] : !pallas_gpu.slot_barriers<2>
    // After a release.
    %v = tt.dot %q, %k, %z : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    %a = arith.addf %t, %u : tensor<64x128xf32, #wg>
    %b = arith.addf %a, %v : tensor<64x128xf32, #wg>
    %out = tensor.cast %b : tensor<64x128xf32, #wg> to tensor<64x128xf32>
    scf.yield %out : tensor<64x128xf32>
  }
  tt.return %r : tensor<64x128xf32>
}

// -----

// Dots accumulating what the loop carries, A in registers and B in a ring
// (attention backward over transposed scores: dV += P^T dO, dK += dS^T Q),
// are issued without waiting; one wait at the iteration's end takes both,
// and the ring slots released after the first of them are released after
// it. The scores' dot, read in the iteration, still waits for itself.
// CHECK-LABEL: tt.func @accumulating
// CHECK: scf.for
// CHECK: %[[S:.*]] = tt.dot %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK: %[[DV:.*]] = tt.dot %{{.*}}, %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK-NOT: pallas_gpu.release_slot
// CHECK: %[[DK:.*]] = tt.dot %{{.*}}, %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK-NEXT: %[[W:.*]]:2 = pallas_gpu.dot_wait 0, %[[DV]], %[[DK]]
// CHECK-NEXT: pallas_gpu.release_slot
// CHECK-NEXT: pallas_gpu.release_slot
// CHECK-NEXT: scf.yield %[[W]]#0, %[[W]]#1
#rows = #pallas_gpu.wgmma<warps = 8>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @accumulating() -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>)
    attributes {pallas.launch = #pallas.launch<symbol = "accumulating", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #rows>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %dor = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %dob = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0, %dk = %acc0) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>) : i32 {
    %z = tensor.cast %zero : tensor<128x64xf32> to tensor<128x64xf32, #rows>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %qt = tt.trans %q {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s = tt.dot %k, %qt, %z : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #rows>
    %p = arith.truncf %s : tensor<128x64xf32, #rows> to tensor<128x64xbf16, #rows>
    %pa = tensor.cast %p : tensor<128x64xbf16, #rows> to tensor<128x64xbf16>
    pallas_gpu.wait_filled %dob[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %do = pallas_gpu.ring_read %dor[%c0] : !ring -> tensor<64x128xbf16>
    %dv2 = tt.dot %pa, %do, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.release_slot %dob[%c0] : !pallas_gpu.slot_barriers<2>
    %dk2 = tt.dot %pa, %q, %dk : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.release_slot %qb[%c0] : !pallas_gpu.slot_barriers<2>
    scf.yield %dv2, %dk2 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>
  }
  tt.return %r#0, %r#1 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>
}

// -----

// The same where the consumers refill the slot right after its reader
// (TMA without a producer warpgroup): the copy would overwrite the tile
// under a dot still reading it. The dots wait for themselves.
// CHECK-LABEL: tt.func @refilled_after_reader
// CHECK-NOT: pallas_gpu.async
// CHECK-NOT: pallas_gpu.dot_wait
// CHECK: tt.return
#rows = #pallas_gpu.wgmma<warps = 8>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @refilled_after_reader(%dop: tensor<64x128x!tt.ptr<bf16>>) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>)
    attributes {pallas.launch = #pallas.launch<symbol = "refilled_after_reader", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #rows>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  %dor = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %dob = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0, %dk = %acc0) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>) : i32 {
    %z = tensor.cast %zero : tensor<128x64xf32> to tensor<128x64xf32, #rows>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %qt = tt.trans %q {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s = tt.dot %k, %qt, %z : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #rows>
    %p = arith.truncf %s : tensor<128x64xf32, #rows> to tensor<128x64xbf16, #rows>
    %pa = tensor.cast %p : tensor<128x64xbf16, #rows> to tensor<128x64xbf16>
    pallas_gpu.wait_filled %dob[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %do = pallas_gpu.ring_read %dor[%c0] : !ring -> tensor<64x128xbf16>
    %dv2 = tt.dot %pa, %do, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.tma_copy %dop into %dor[%c0] signal %dob {last_reader, tensor_map = 0 : i64} : tensor<64x128x!tt.ptr<bf16>>, !ring, !pallas_gpu.slot_barriers<2>
    %dk2 = tt.dot %pa, %q, %dk : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    scf.yield %dv2, %dk2 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>
  }
  tt.return %r#0, %r#1 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>
}

// -----

// A synchronous dot after the accumulating ones, reading none of their
// results (dQ = dS K after dK += dS^T Q), is issued before the last of
// them, with its slice (dS's transpose, K's read); a wait for it alone,
// with one group left in flight, follows that dot. Its operand exchange
// then stores registers no dot in flight reads.
// CHECK-LABEL: tt.func @dq_before_dk
// CHECK: scf.for
// CHECK: %[[DV:.*]] = tt.dot %{{.*}}, %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK: %[[DST:.*]] = tt.trans %[[PA:.*]] {order
// CHECK: %[[DQ:.*]] = tt.dot %[[DST]], %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK-NEXT: %[[DK:.*]] = tt.dot %[[PA]], %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK-NEXT: %[[WQ:.*]] = pallas_gpu.dot_wait 1, %[[DQ]]
// CHECK-NEXT: arith.addf %[[WQ]], %[[WQ]]
// CHECK: %[[W:.*]]:2 = pallas_gpu.dot_wait 0, %[[DV]], %[[DK]]
// CHECK-NEXT: pallas_gpu.release_slot
// CHECK-NEXT: pallas_gpu.release_slot
// CHECK-NEXT: scf.yield %[[W]]#0, %[[W]]#1
#rows = #pallas_gpu.wgmma<warps = 8>
#cols = #pallas_gpu.wgmma<warps = 8, column_groups = 2>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @dq_before_dk(%out: tensor<64x128x!tt.ptr<f32>>) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>)
    attributes {pallas.launch = #pallas.launch<symbol = "dq_before_dk", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %zq = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #rows>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %dor = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %dob = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0, %dk = %acc0) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>) : i32 {
    %z = tensor.cast %zero : tensor<128x64xf32> to tensor<128x64xf32, #rows>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %qt = tt.trans %q {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s = tt.dot %k, %qt, %z : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #rows>
    %p = arith.truncf %s : tensor<128x64xf32, #rows> to tensor<128x64xbf16, #rows>
    %pa = tensor.cast %p : tensor<128x64xbf16, #rows> to tensor<128x64xbf16>
    pallas_gpu.wait_filled %dob[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %do = pallas_gpu.ring_read %dor[%c0] : !ring -> tensor<64x128xbf16>
    %dv2 = tt.dot %pa, %do, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.release_slot %dob[%c0] : !pallas_gpu.slot_barriers<2>
    %dk2 = tt.dot %pa, %q, %dk : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.release_slot %qb[%c0] : !pallas_gpu.slot_barriers<2>
    %dst = tt.trans %pa {order = array<i32: 1, 0>} : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %zc = tensor.cast %zq : tensor<64x128xf32> to tensor<64x128xf32, #cols>
    %k2 = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
    %dq = tt.dot %dst, %k2, %zc : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #cols>
    %dq2 = arith.addf %dq, %dq : tensor<64x128xf32, #cols>
    %dqb = tensor.cast %dq2 : tensor<64x128xf32, #cols> to tensor<64x128xf32>
    %old = tt.atomic_rmw fadd, acq_rel, gpu, %out, %dqb : (tensor<64x128x!tt.ptr<f32>>, tensor<64x128xf32>) -> tensor<64x128xf32>
    scf.yield %dv2, %dk2 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>
  }
  tt.return %r#0, %r#1 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>
}

// -----

// The same where the dot needs a tile loaded after the last accumulating
// dot (a load does not move): it stays and waits for itself.
// CHECK-LABEL: tt.func @dq_reads_a_load
// CHECK: %[[DK:.*]] = tt.dot %{{.*}}, %{{.*}}, %{{.*}} {pallas_gpu.async}
// CHECK: tt.load
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NOT: pallas_gpu.dot_wait 1
#rows = #pallas_gpu.wgmma<warps = 8>
#cols = #pallas_gpu.wgmma<warps = 8, column_groups = 2>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @dq_reads_a_load(%kp: tensor<128x128x!tt.ptr<bf16>>) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>, tensor<64x128xf32, #cols>)
    attributes {pallas.launch = #pallas.launch<symbol = "dq_reads_a_load", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %zq = arith.constant dense<0.0> : tensor<64x128xf32, #cols>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #rows>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %dor = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %dob = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0, %dk = %acc0, %dqs = %zq) -> (tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>, tensor<64x128xf32, #cols>) : i32 {
    %z = tensor.cast %zero : tensor<128x64xf32> to tensor<128x64xf32, #rows>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %qt = tt.trans %q {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s = tt.dot %k, %qt, %z : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32, #rows>
    %p = arith.truncf %s : tensor<128x64xf32, #rows> to tensor<128x64xbf16, #rows>
    %pa = tensor.cast %p : tensor<128x64xbf16, #rows> to tensor<128x64xbf16>
    pallas_gpu.wait_filled %dob[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %do = pallas_gpu.ring_read %dor[%c0] : !ring -> tensor<64x128xbf16>
    %dv2 = tt.dot %pa, %do, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.release_slot %dob[%c0] : !pallas_gpu.slot_barriers<2>
    %dk2 = tt.dot %pa, %q, %dk : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    pallas_gpu.release_slot %qb[%c0] : !pallas_gpu.slot_barriers<2>
    %dst = tt.trans %pa {order = array<i32: 1, 0>} : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %k2 = tt.load %kp : tensor<128x128x!tt.ptr<bf16>>
    %dq = tt.dot %dst, %k2, %dqs : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #cols>
    scf.yield %dv2, %dk2, %dq : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>, tensor<64x128xf32, #cols>
  }
  tt.return %r#0, %r#1, %r#2 : tensor<128x128xf32, #rows>, tensor<128x128xf32, #rows>, tensor<64x128xf32, #cols>
}

// -----

// dP's start from values that need not repeat (a tile the function takes):
// it moves before S's issue too, but is not copied.
// CHECK-LABEL: tt.func @start_from_an_argument
// CHECK: scf.for
// CHECK: %[[D:.*]] = tensor.cast %arg0
// CHECK-NEXT: tt.dot {{.*}} {pallas_gpu.async}
// CHECK-NOT: pallas_gpu.own_registers
// CHECK: tt.dot %{{.*}}, %{{.*}}, %[[D]] {pallas_gpu.async}
#wg = #pallas_gpu.wgmma<warps = 8, column_groups = 2>
#rows = #pallas_gpu.wgmma<warps = 8>
!tile = tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>
!ring = !pallas_gpu.ring<2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
!whole = !pallas_gpu.ring<1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @start_from_an_argument(%delta: tensor<64x128xf32>) -> (tensor<128x128xf32, #rows>, tensor<64x128xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "start_from_an_argument", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #rows>
  %qr = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %qb = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %dor = pallas_gpu.alloc_ring : <2, tensor<64x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %dob = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  %kr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %k = pallas_gpu.ring_read %kr[%c0] : !whole -> tensor<128x128xbf16>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %vr = pallas_gpu.alloc_ring : <1, tensor<128x128xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %v = pallas_gpu.ring_read %vr[%c0] : !whole -> tensor<128x128xbf16>
  %vt = tt.trans %v {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %acc0, %last = %zero) -> (tensor<128x128xf32, #rows>, tensor<64x128xf32>) : i32 {
    %z = tensor.cast %zero : tensor<64x128xf32> to tensor<64x128xf32, #wg>
    pallas_gpu.wait_filled %qb[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %q = pallas_gpu.ring_read %qr[%c0] : !ring -> tensor<64x128xbf16>
    %s = tt.dot %q, %kt, %z : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    %p = math.exp2 %s : tensor<64x128xf32, #wg>
    %pb = arith.truncf %p : tensor<64x128xf32, #wg> to tensor<64x128xbf16, #wg>
    %pp = tensor.cast %pb : tensor<64x128xbf16, #wg> to tensor<64x128xbf16>
    %pt = tt.trans %pp {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    pallas_gpu.wait_filled %dob[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
    %do = pallas_gpu.ring_read %dor[%c0] : !ring -> tensor<64x128xbf16>
    %dv = tt.dot %pt, %do, %acc : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #rows>
    %d = tensor.cast %delta : tensor<64x128xf32> to tensor<64x128xf32, #wg>
    %dp = tt.dot %do, %vt, %d : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32, #wg>
    pallas_gpu.release_slot %dob[%c0] : !pallas_gpu.slot_barriers<2>
    %ds = arith.mulf %p, %dp : tensor<64x128xf32, #wg>
    pallas_gpu.release_slot %qb[%c0] : !pallas_gpu.slot_barriers<2>
    %out = tensor.cast %ds : tensor<64x128xf32, #wg> to tensor<64x128xf32>
    scf.yield %dv, %out : tensor<128x128xf32, #rows>, tensor<64x128xf32>
  }
  tt.return %r#0, %r#1 : tensor<128x128xf32, #rows>, tensor<64x128xf32>
}
