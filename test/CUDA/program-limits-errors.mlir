// pallas-program-limits' diagnostics: a tensor whose share per thread
// (elements / (32 * num_warps), rounded up) exceeds max-elements-per-thread
// is refused at the op that makes it; a kernel whose tensors' shares add up
// to more than max-kernel-elements-per-thread at the kernel. The limits are
// set low here (program-limits.test runs the defaults through pallasc);
// program-limits.mlir holds the kernels right at them.
// RUN: pallas-opt %s -split-input-file -verify-diagnostics --pallas-program-limits="max-elements-per-thread=8 max-kernel-elements-per-thread=24"

// 1025 elements over 128 threads: 9 per thread.
tt.func public @block_rounds_up() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  // expected-error @+1 {{a 1025xf32 block is too large for one CUDA program: 9 elements per thread with num_warps = 4 (at most 8); use a smaller block_shape or more warps}}
  %z = arith.constant dense<0.0> : tensor<1025xf32>
  tt.return
}

// -----

// The first tensor too large is the one named, also inside a loop; the
// kernel's num_warps counts; tensors of pointers count as blocks too.
tt.func public @in_loop(%p: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 2>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %ok = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    // expected-error @+1 {{a 32x32x!tt.ptr<f32> block is too large for one CUDA program: 16 elements per thread with num_warps = 2 (at most 8)}}
    %v = tt.splat %p : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %w = tt.splat %p : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  }
  tt.return
}

// -----

// Four tensors of 8 per thread: 32 in all.
// expected-error @+1 {{the kernel's blocks are too large for one CUDA program: its tensors hold 32 elements per thread in all with num_warps = 4 (at most 24); use smaller block_shapes or more warps}}
tt.func public @kernel_total() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %a = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %b = arith.addi %a, %a : tensor<1024xi32>
  %c = arith.addi %b, %a : tensor<1024xi32>
  %d = arith.addi %c, %a : tensor<1024xi32>
  tt.return
}
