// pallas-program-limits refuses tile IR whose tensors a CTA's registers
// cannot hold and changes nothing else. Here the kernels sit exactly at the
// limits (set low by the options) and pass through as they are: a thread's
// share is elements / (32 * num_warps), rounded up, from the function's
// #pallas.launch; functions without a launch are not checked.
// RUN: pallas-opt %s --pallas-program-limits="max-elements-per-thread=8 max-kernel-elements-per-thread=24" | FileCheck %s

// 1024 elements over 4 warps (the default): 8 per thread, the most a tensor
// may hold.
// CHECK-LABEL: tt.func public @at_tensor_limit
// CHECK-NEXT: tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
// CHECK-NEXT: tt.return
tt.func public @at_tensor_limit() attributes {pallas.launch = #pallas.launch<symbol = "a", grid = [1]>} {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  tt.return
}

// 2048 elements over 8 warps: also 8 per thread.
// CHECK-LABEL: tt.func public @more_warps
// CHECK-NEXT: tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
tt.func public @more_warps() attributes {pallas.launch = #pallas.launch<symbol = "b", grid = [1], num_warps = 8>} {
  %r = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
  tt.return
}

// Three tensors of 8 per thread: 24 in all, the most a kernel may hold
// (results of ops in loops count too).
// CHECK-LABEL: tt.func public @at_kernel_limit
// CHECK: tt.make_range
// CHECK: scf.for
// CHECK: arith.addi
// CHECK: tt.return
tt.func public @at_kernel_limit() attributes {pallas.launch = #pallas.launch<symbol = "c", grid = [1]>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %r) -> (tensor<1024xi32>) : i32 {
    %n = arith.addi %acc, %acc : tensor<1024xi32>
    scf.yield %n : tensor<1024xi32>
  }
  tt.return
}

// No launch, nothing to measure against: left alone, however large.
// CHECK-LABEL: tt.func public @no_launch
// CHECK-NEXT: tt.make_range {end = 1048576 : i32, start = 0 : i32}
tt.func public @no_launch() {
  %r = tt.make_range {end = 1048576 : i32, start = 0 : i32} : tensor<1048576xi32>
  tt.return
}
