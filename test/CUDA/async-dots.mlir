// pallas-async-dots: the wgmma dots of a turn spanning several are issued
// without waiting (pallas_gpu.async) and waited for once
// (pallas_gpu.dot_wait); a GEMM's K loop 256 or more wide leaves its dot in
// flight, one group pending, and waits for all after the loop; a turn whose
// dots would hold more registers than a consumer has waits for a dot taking
// A from the registers as it is issued. Pinned here: those forms, and the
// dots left waiting at once.
// RUN: pallas-opt %s --pallas-async-dots | FileCheck %s

// The dots of a turn that spans several (pallas-warpgroup-turns) are issued
// without waiting for each; one pallas_gpu.dot_wait after the last takes
// all their results, and every later use reads them through it.
// CHECK-LABEL: tt.func @two_dot_turn
// CHECK: scf.for
// CHECK: %[[PV:.*]] = tt.dot %{{.*}} {pallas_gpu.async, pallas_gpu.turn_take}
// CHECK-NEXT: %[[QK:.*]] = tt.dot %{{.*}} {pallas_gpu.async, pallas_gpu.turn_pass}
// CHECK-NEXT: %[[W:.*]]:2 = pallas_gpu.dot_wait 0, %[[PV]], %[[QK]] : tensor<64x64xf32>, tensor<64x64xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[W]]#1, %[[W]]#1
// CHECK-NEXT: scf.yield %[[W]]#0, %[[S]]
tt.func @two_dot_turn(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %acc: tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%o = %acc, %s = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
    %pv = tt.dot %a, %b, %o {pallas_gpu.turn_take} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %qk = tt.dot %a, %b, %zero {pallas_gpu.turn_pass} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %s2 = arith.addf %qk, %qk : tensor<64x64xf32>
    scf.yield %pv, %s2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  tt.return
}

// A turn of one dot has nothing to run back to back: left as it is.
// CHECK-LABEL: tt.func @one_dot_turns
// CHECK-NOT: pallas_gpu.async
// CHECK-NOT: pallas_gpu.dot_wait
// CHECK: tt.return
tt.func @one_dot_turns(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %acc: tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%o = %acc) -> (tensor<64x64xf32>) : i32 {
    %x = tt.dot %a, %b, %o {pallas_gpu.turn_take, pallas_gpu.turn_pass} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %y = tt.dot %a, %b, %x {pallas_gpu.turn_take, pallas_gpu.turn_pass} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %y : tensor<64x64xf32>
  }
  tt.return
}

// The op's syntax round-trips (any number of values, pending groups).
// CHECK-LABEL: tt.func @dot_wait_syntax
// CHECK: pallas_gpu.dot_wait 1, %{{.*}} : tensor<4xf32>
tt.func @dot_wait_syntax(%a: tensor<4xf32>) -> tensor<4xf32> {
  %w = pallas_gpu.dot_wait 1, %a : tensor<4xf32>
  tt.return %w : tensor<4xf32>
}

// A GEMM's K loop with a 256-wide wgmma dot: the dot is left in flight by
// its wait (one group pending), the next iteration's dot queues behind it;
// the loop's result is waited for in full after the loop.
// CHECK-LABEL: tt.func @k_loop_in_flight
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT: %[[D:.*]] = tt.dot %{{.*}}, %{{.*}}, %[[ACC]] {pallas_gpu.async}
// CHECK-NEXT: %[[W:.*]] = pallas_gpu.dot_wait 1, %[[D]]
// CHECK-NEXT: scf.yield %[[W]]
// CHECK: %[[ALL:.*]] = pallas_gpu.dot_wait 0, %[[R]]
// CHECK-NEXT: tt.return %[[ALL]]
tt.func @k_loop_in_flight(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) -> tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %d = tt.dot %a, %b, %acc : tensor<128x64xbf16> * tensor<64x256xbf16> -> tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %d : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return %r : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
}

// 128 wide, the second barrier per iteration costs more than the drain:
// waited for at once, as is a dot whose result is read inside the loop.
// CHECK-LABEL: tt.func @k_loop_narrow
// CHECK-NOT: pallas_gpu.async
// CHECK-NOT: pallas_gpu.dot_wait
// CHECK: tt.return
tt.func @k_loop_narrow(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>, %b2: tensor<64x256xbf16>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %d = tt.dot %a, %b, %acc : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %d : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  %zero2 = arith.constant dense<0.0> : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  %r2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero2) -> (tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %d = tt.dot %a, %b2, %acc : tensor<128x64xbf16> * tensor<64x256xbf16> -> tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
    %e = arith.addf %d, %d : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %e : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return
}

// A dot taking A from the registers (P V in fp8 attention on 256-key
// blocks: O 64, P 32 and S 128 registers a thread, 224 of a consumer's
// 240) would leave too few registers beside a turn's dots issued together
// (ptxas then serializes every wgmma): it is waited for as it is issued,
// and the next dot issued after it.
// CHECK-LABEL: tt.func @register_a_over_budget
// CHECK: scf.for
// CHECK: %[[PV:.*]] = tt.dot %{{.*}} {pallas_gpu.async, pallas_gpu.turn_take}
// CHECK-NEXT: %[[WPV:.*]] = pallas_gpu.dot_wait 0, %[[PV]] : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
// CHECK-NEXT: %[[QK:.*]] = tt.dot %{{.*}} {pallas_gpu.async, pallas_gpu.turn_pass}
// CHECK-NEXT: %[[WQK:.*]] = pallas_gpu.dot_wait 0, %[[QK]] : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
// CHECK-NEXT: scf.yield %[[WPV]], %[[WQK]]
tt.func @register_a_over_budget(%p: tensor<128x256xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>,
                                %v: tensor<256x128xf8E4M3FN>, %q: tensor<128x128xf8E4M3FN>,
                                %k: tensor<128x256xf8E4M3FN>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %o0 = arith.constant dense<0.0> : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %s0 = arith.constant dense<0.0> : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  %r:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%o = %o0, %s = %s0) -> (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>, tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %pa = tensor.cast %p : tensor<128x256xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>> to tensor<128x256xf8E4M3FN>
    %pv = tt.dot %pa, %v, %o {pallas_gpu.turn_take} : tensor<128x256xf8E4M3FN> * tensor<256x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
    %qk = tt.dot %q, %k, %s0 {pallas_gpu.turn_pass} : tensor<128x128xf8E4M3FN> * tensor<128x256xf8E4M3FN> -> tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %pv, %qk : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>, tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return
}

// Within the budget (fp8 D = 256 on 128-key blocks: O 128, P 16 and S 64
// registers, 208 of 240), the turn's dots are issued together.
// CHECK-LABEL: tt.func @register_a_within_budget
// CHECK: scf.for
// CHECK: %[[PV:.*]] = tt.dot %{{.*}} {pallas_gpu.async, pallas_gpu.turn_take}
// CHECK-NEXT: %[[QK:.*]] = tt.dot %{{.*}} {pallas_gpu.async, pallas_gpu.turn_pass}
// CHECK-NEXT: %[[W:.*]]:2 = pallas_gpu.dot_wait 0, %[[PV]], %[[QK]]
tt.func @register_a_within_budget(%p: tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>,
                                  %v: tensor<128x256xf8E4M3FN>, %q: tensor<128x256xf8E4M3FN>,
                                  %k: tensor<256x128xf8E4M3FN>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %o0 = arith.constant dense<0.0> : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
  %s0 = arith.constant dense<0.0> : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %r:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%o = %o0, %s = %s0) -> (tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>, tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %pa = tensor.cast %p : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>> to tensor<128x128xf8E4M3FN>
    %pv = tt.dot %pa, %v, %o {pallas_gpu.turn_take} : tensor<128x128xf8E4M3FN> * tensor<128x256xf8E4M3FN> -> tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>
    %qk = tt.dot %q, %k, %s0 {pallas_gpu.turn_pass} : tensor<128x256xf8E4M3FN> * tensor<256x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %pv, %qk : tensor<128x256xf32, #pallas_gpu.wgmma<warps = 8>>, tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return
}
