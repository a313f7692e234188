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
