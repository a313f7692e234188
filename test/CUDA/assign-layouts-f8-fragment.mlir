// RUN: pallas-opt %s -split-input-file --pallas-assign-layouts=wgmma=true | FileCheck %s

// fp8 attention's P: rounded to f8 in the wgmma accumulator layout and read
// only as a wgmma dot's A. It changes to wgmma's f8 A-fragment order where
// it is rounded (#pallas_gpu.wgmma_f8_a), the dot taking it as it is.
// CHECK-LABEL: tt.func public @p_as_a
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma<warps = 4>>
// CHECK: %[[F:.*]] = tensor.cast %[[P]] : tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 4>>
// CHECK: %[[A:.*]] = tensor.cast %[[F]] : tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 4>> to tensor<64x64xf8E4M3FN>
// CHECK: tt.dot %[[A]]
tt.func public @p_as_a(%q: tensor<64x64xf8E4M3FN>, %kt: tensor<64x64xf8E4M3FN>, %vt: tensor<64x64xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %k = tt.trans %kt {order = array<i32: 1, 0>} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %s = tt.dot %q, %k, %c : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf8E4M3FN>
  %v = tt.trans %vt {order = array<i32: 1, 0>} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %o = tt.dot %p, %v, %c : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.return %o : tensor<64x64xf32>
}

// -----

// Carried by a loop (pallas-defer-last-dot's P): the rounding before the
// loop and the one yielded, the loop's argument and result change together.
// CHECK-LABEL: tt.func public @p_carried
// CHECK: tensor.cast %{{.*}} : tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 4>>
// CHECK: scf.for {{.*}} iter_args(%[[ARG:[a-z0-9_]+]] = %{{.*}}) -> (tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 4>>, 
// CHECK:   tensor.cast %[[ARG]] : tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 4>> to tensor<64x64xf8E4M3FN>
// CHECK:   tensor.cast %{{.*}} : tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 4>>
// CHECK:   scf.yield
tt.func public @p_carried(%q: tensor<64x64xf8E4M3FN>, %kt: tensor<64x64xf8E4M3FN>, %vt: tensor<64x64xf8E4M3FN>, %c: tensor<64x64xf32>, %n: i32) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %k = tt.trans %kt {order = array<i32: 1, 0>} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %v = tt.trans %vt {order = array<i32: 1, 0>} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %s0 = tt.dot %q, %k, %c : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  %p0 = arith.truncf %s0 : tensor<64x64xf32> to tensor<64x64xf8E4M3FN>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %c) -> (tensor<64x64xf8E4M3FN>, tensor<64x64xf32>) : i32 {
    %o = tt.dot %p, %v, %acc : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    %s = tt.dot %q, %k, %c : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    %pn = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf8E4M3FN>
    scf.yield %pn, %o : tensor<64x64xf8E4M3FN>, tensor<64x64xf32>
  }
  %last = tt.dot %r#0, %v, %r#1 : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.return %last : tensor<64x64xf32>
}

// -----

// P also read otherwise (returned): it stays in the accumulator layout, and
// the dot gathers its fragments itself.
// CHECK-LABEL: tt.func public @p_also_returned
// CHECK-NOT: wgmma_f8_a
tt.func public @p_also_returned(%q: tensor<64x64xf8E4M3FN>, %kt: tensor<64x64xf8E4M3FN>, %vt: tensor<64x64xf8E4M3FN>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf8E4M3FN>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %k = tt.trans %kt {order = array<i32: 1, 0>} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %s = tt.dot %q, %k, %c : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf8E4M3FN>
  %v = tt.trans %vt {order = array<i32: 1, 0>} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %o = tt.dot %p, %v, %c : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.return %o, %p : tensor<64x64xf32>, tensor<64x64xf8E4M3FN>
}
