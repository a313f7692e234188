// RUN: pallas-opt %s -split-input-file --pallas-transpose-scores | FileCheck %s

// pallas-transpose-scores: attention backward's dK/dV scan as JAX's
// mha_backward writes it. P and dS are read only transposed (the dV and
// dK dots' A), so the scores are computed transposed: S^T = K Q^T, the
// row statistics broadcast along the other axis, dP^T = V dO^T, and the
// dV and dK dots read P^T and dS^T as they are.
// CHECK-LABEL: tt.func @dk_dv
// CHECK: scf.for
// CHECK: %[[Q:.*]] = tt.load %arg2
// CHECK-NEXT: %[[DO:.*]] = tt.load %arg5
// CHECK-NEXT: %[[QT:.*]] = tt.trans %[[Q]] {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
// CHECK-NEXT: %[[ST:.*]] = tt.dot %arg0, %[[QT]], %{{.*}} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: %[[PT:.*]] = math.exp2 %{{.*}} : tensor<128x64xf32>
// CHECK: %[[PB:.*]] = arith.truncf %[[PT]] : tensor<128x64xf32> to tensor<128x64xbf16>
// CHECK-NEXT: tt.dot %[[PB]], %[[DO]], %{{.*}} : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK: %[[DOT:.*]] = tt.trans %[[DO]] {order = array<i32: 1, 0>}
// CHECK-NEXT: tt.dot %arg1, %[[DOT]], %{{.*}} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK: %[[DSB:.*]] = arith.truncf %{{.*}} : tensor<128x64xf32> to tensor<128x64xbf16>
// CHECK-NEXT: tt.dot %[[DSB]], %[[Q]], %{{.*}} : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK-NOT: tt.trans
// CHECK: scf.yield
tt.func @dk_dv(%k: tensor<128x128xbf16>, %v: tensor<128x128xbf16>, %qp: tensor<64x128x!tt.ptr<bf16>>,
               %lse: tensor<64xf32>, %delta: tensor<64xf32>, %dop: tensor<64x128x!tt.ptr<bf16>>)
    -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %scale = arith.constant dense<0.5> : tensor<64x128xf32>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %vt = tt.trans %v {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0, %dk = %acc0) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
    %q = tt.load %qp : tensor<64x128x!tt.ptr<bf16>>
    %do = tt.load %dop : tensor<64x128x!tt.ptr<bf16>>
    %s = tt.dot %q, %kt, %zero : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %l = tt.expand_dims %lse {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %lb = tt.broadcast %l : tensor<64x1xf32> -> tensor<64x128xf32>
    %x = math.fma %s, %scale, %lb : tensor<64x128xf32>
    %p = math.exp2 %x : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %pt = tt.trans %pb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dv2 = tt.dot %pt, %do, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
    %d = tt.expand_dims %delta {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %db = tt.broadcast %d : tensor<64x1xf32> -> tensor<64x128xf32>
    %nd = arith.subf %zero, %db : tensor<64x128xf32>
    %dp = tt.dot %do, %vt, %nd : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %ds = arith.mulf %p, %dp : tensor<64x128xf32>
    %dsb = arith.truncf %ds : tensor<64x128xf32> to tensor<64x128xbf16>
    %dst = tt.trans %dsb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dk2 = tt.dot %dst, %q, %dk : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %dv2, %dk2 : tensor<128x128xf32>, tensor<128x128xf32>
  }
  tt.return %r#0, %r#1 : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// The five-matmul form adds dQ = dS K too: dS is transposed back for it
// (two values leave transposed, P and dS, one as an operand).
// CHECK-LABEL: tt.func @dq_too
// CHECK: %[[Q:.*]] = tt.load %arg1
// CHECK: tt.dot %arg0, %{{.*}}, %{{.*}} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK: arith.mulf %{{.*}} : tensor<128x64xf32>
// CHECK-NEXT: %[[DST:.*]] = arith.truncf %{{.*}} : tensor<128x64xf32> to tensor<128x64xbf16>
// CHECK-NEXT: tt.dot %[[DST]], %[[Q]], %{{.*}} : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
// CHECK-NEXT: %[[DS:.*]] = tt.trans %[[DST]] {order = array<i32: 1, 0>} : tensor<128x64xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT: tt.dot %[[DS]], %arg0, %{{.*}} : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
tt.func @dq_too(%k: tensor<128x128xbf16>, %qp: tensor<64x128x!tt.ptr<bf16>>) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<64x128xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0, %dk = %acc0, %dq = %zero) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<64x128xf32>) : i32 {
    %q = tt.load %qp : tensor<64x128x!tt.ptr<bf16>>
    %s = tt.dot %q, %kt, %zero : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %p = math.exp2 %s : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %pt = tt.trans %pb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dv2 = tt.dot %pt, %q, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
    %ds = arith.mulf %p, %s : tensor<64x128xf32>
    %dsb = arith.truncf %ds : tensor<64x128xf32> to tensor<64x128xbf16>
    %dst = tt.trans %dsb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dk2 = tt.dot %dst, %q, %dk : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
    %dq2 = tt.dot %dsb, %k, %dq : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    scf.yield %dv2, %dk2, %dq2 : tensor<128x128xf32>, tensor<128x128xf32>, tensor<64x128xf32>
  }
  tt.return %r#0, %r#1, %r#2 : tensor<128x128xf32>, tensor<128x128xf32>, tensor<64x128xf32>
}

// -----

// Left as written: P read as an operand as it is (the forward's P V, the
// dQ scan's dS K) more often than transposed, or by anything else than a
// dot or a transpose (the forward's row sums).
// CHECK-LABEL: tt.func @forward
// CHECK: tt.dot %arg1, %{{.*}}, %{{.*}} : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
// CHECK-LABEL: tt.func @dq_scan
// CHECK: tt.dot %arg1, %{{.*}}, %{{.*}} : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
// CHECK-NOT: tensor<128x64xf32>
tt.func @forward(%k: tensor<128x128xbf16>, %q: tensor<64x128xbf16>, %v: tensor<128x128xbf16>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%o = %zero) -> (tensor<64x128xf32>) : i32 {
    %s = tt.dot %q, %kt, %zero : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %p = math.exp2 %s : tensor<64x128xf32>
    %m = "tt.reduce"(%p) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %x = arith.addf %a, %b : f32
      tt.reduce.return %x : f32
    }) : (tensor<64x128xf32>) -> tensor<64xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %pt = tt.trans %pb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %o2 = tt.dot %pb, %v, %o : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    scf.yield %o2 : tensor<64x128xf32>
  }
  tt.return %r : tensor<64x128xf32>
}
tt.func @dq_scan(%k: tensor<128x128xbf16>, %q: tensor<64x128xbf16>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%dq = %zero) -> (tensor<64x128xf32>) : i32 {
    %s = tt.dot %q, %kt, %zero : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %p = math.exp2 %s : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %dq2 = tt.dot %pb, %k, %dq : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    scf.yield %dq2 : tensor<64x128xf32>
  }
  tt.return %r : tensor<64x128xf32>
}

// -----

// Two dots of the region reading one transposed tile (K^T): it goes once
// nothing reads it. A member dot reading a register tile (not loaded)
// would need it transposed anew: that counts against the rewrite.
// CHECK-LABEL: tt.func @shared_operand
// CHECK-NOT: tt.trans %arg0
// CHECK: %[[S1:.*]] = tt.dot %arg0, %{{.*}}, %{{.*}} : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK: tt.dot %arg0, %{{.*}}, %[[S1]] : tensor<128x128xbf16> * tensor<128x64xbf16> -> tensor<128x64xf32>
// CHECK-LABEL: tt.func @register_operand
// CHECK: tt.dot %arg1, %{{.*}}, %{{.*}} : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
// CHECK-NOT: tensor<128x64xf32>
tt.func @shared_operand(%k: tensor<128x128xbf16>, %qp: tensor<64x128x!tt.ptr<bf16>>) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0) -> (tensor<128x128xf32>) : i32 {
    %q = tt.load %qp : tensor<64x128x!tt.ptr<bf16>>
    %s1 = tt.dot %q, %kt, %zero : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %s2 = tt.dot %q, %kt, %s1 : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %pb = arith.truncf %s2 : tensor<64x128xf32> to tensor<64x128xbf16>
    %pt = tt.trans %pb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dv2 = tt.dot %pt, %q, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %dv2 : tensor<128x128xf32>
  }
  tt.return %r : tensor<128x128xf32>
}
tt.func @register_operand(%k: tensor<128x128xbf16>, %q: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%dv = %acc0) -> (tensor<128x128xf32>) : i32 {
    %s = tt.dot %q, %kt, %zero : tensor<64x128xbf16> * tensor<128x128xbf16> -> tensor<64x128xf32>
    %pb = arith.truncf %s : tensor<64x128xf32> to tensor<64x128xbf16>
    %pt = tt.trans %pb {order = array<i32: 1, 0>} : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dv2 = tt.dot %pt, %q, %dv : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %dv2 : tensor<128x128xf32>
  }
  tt.return %r : tensor<128x128xf32>
}
