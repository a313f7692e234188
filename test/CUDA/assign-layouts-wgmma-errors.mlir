// pallas-assign-layouts=wgmma=true's diagnostics on f8 dots: wgmma runs
// them in one shape (both operands of one f8 type, 64 rows per warpgroup,
// K a multiple of 32) and reads them K-major only (B transposed); f8
// arithmetic other than conversions is refused. A dot that fits passes, and
// so do conversions.
// RUN: pallas-opt %s -split-input-file -verify-diagnostics --pallas-assign-layouts=wgmma=true | FileCheck %s

// B as [N, K] transposed: the wgmma layout.
// CHECK-LABEL: tt.func public @f8_k_major
// CHECK: tt.dot %{{.*}} -> tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
tt.func public @f8_k_major(%a: tensor<64x32xf8E4M3FN>, %bt: tensor<64x32xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %b = tt.trans %bt {order = array<i32: 1, 0>} : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %d = tt.dot %a, %b, %c : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}

// -----

// Conversions to and from f8 pass (sm_90a's cvt).
// CHECK-LABEL: tt.func public @f8_conversions
// CHECK: arith.truncf %{{.*}} : tensor<64xf32> to tensor<64xf8E4M3FN>
// CHECK: arith.extf %{{.*}} : tensor<64xf8E5M2> to tensor<64xbf16>
tt.func public @f8_conversions(%a: tensor<64xf32>, %b: tensor<64xf8E5M2>) -> (tensor<64xf8E4M3FN>, tensor<64xbf16>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %n = arith.truncf %a : tensor<64xf32> to tensor<64xf8E4M3FN>
  %w = arith.extf %b : tensor<64xf8E5M2> to tensor<64xbf16>
  tt.return %n, %w : tensor<64xf8E4M3FN>, tensor<64xbf16>
}

// -----

tt.func public @f8_mn_major(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  // expected-error @+1 {{this pallas.dot multiplies f8 operands with B [K, N] in memory; wgmma reads f8 operands K-major only: pass B as [N, K] and use transpose_rhs}}
  %d = tt.dot %a, %b, %c : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}

// -----

// 32 rows: less than one m64 tile per warpgroup.
tt.func public @f8_short(%a: tensor<32x32xf8E4M3FN>, %bt: tensor<64x32xf8E4M3FN>, %c: tensor<32x64xf32>) -> tensor<32x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %b = tt.trans %bt {order = array<i32: 1, 0>} : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  // expected-error @+1 {{this pallas.dot multiplies f8 operands in a shape wgmma cannot run: both operands of one f8 type, an f32 result of 64 rows per warpgroup, and a contracting dim that is a multiple of 32}}
  %d = tt.dot %a, %b, %c : tensor<32x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<32x64xf32>
  tt.return %d : tensor<32x64xf32>
}

// -----

tt.func public @f8_mul(%a: tensor<64xf8E5M2>) -> tensor<64xf8E5M2>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  // expected-error @+1 {{'arith.mulf' op computes on 'f8E5M2', which the cuda target only loads, stores, converts (arith.truncf, arith.extf) and multiplies in dots}}
  %s = arith.mulf %a, %a : tensor<64xf8E5M2>
  tt.return %s : tensor<64xf8E5M2>
}
