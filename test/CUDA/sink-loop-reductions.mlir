// RUN: pallas-opt %s --pallas-sink-loop-reductions --canonicalize | FileCheck %s

// layer_norm backward's dw/db: each iteration's column sums go to the
// totals; the loop carries the tiles and reduces them once after it.
// CHECK-LABEL: tt.func @column_sums
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
// CHECK: %[[L:.*]]:2 = scf.for {{.*}} iter_args(%[[T:.*]] = %[[Z]], %[[U:.*]] = %[[Z]]) -> (tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK-NOT: tt.reduce
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[S:.*]] = arith.addf %[[T]], %[[P]] : tensor<16x16xf32>
// CHECK: %[[R:.*]] = arith.addf %[[U]], %{{.*}} : tensor<16x16xf32>
// CHECK: scf.yield %[[S]], %[[R]]
// CHECK: %[[DW:.*]] = "tt.reduce"(%[[L]]#0) <{axis = 0 : i32}>
// CHECK: arith.addf %arg2, %[[DW]] : tensor<16xf32>
// CHECK: "tt.reduce"(%[[L]]#1) <{axis = 0 : i32}>
tt.func @column_sums(%x: tensor<16x16xf32>, %dy: tensor<16x16xf32>, %init: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%dw = %init, %db = %init) -> (tensor<16xf32>, tensor<16xf32>) : i32 {
    %p = arith.mulf %x, %dy : tensor<16x16xf32>
    %s = "tt.reduce"(%p) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<16x16xf32>) -> tensor<16xf32>
    %n = arith.addf %dw, %s : tensor<16xf32>
    %s2 = "tt.reduce"(%dy) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<16x16xf32>) -> tensor<16xf32>
    %n2 = arith.addf %s2, %db : tensor<16xf32>
    scf.yield %n, %n2 : tensor<16xf32>, tensor<16xf32>
  }
  tt.return %r#0, %r#1 : tensor<16xf32>, tensor<16xf32>
}

// A running max: the tile starts at -inf, exactly the same result.
// CHECK-LABEL: tt.func @running_max
// CHECK: arith.constant dense<0xFF800000> : tensor<8x32xf32>
// CHECK: scf.for
// CHECK: arith.maxnumf %{{.*}}, %arg0 : tensor<8x32xf32>
// CHECK: "tt.reduce"
// CHECK: arith.maxnumf %arg1, %{{.*}} : tensor<8xf32>
tt.func @running_max(%x: tensor<8x32xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%m = %init) -> (tensor<8xf32>) : i32 {
    %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x32xf32>) -> tensor<8xf32>
    %n = arith.maxnumf %m, %s : tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  tt.return %r : tensor<8xf32>
}

// Left alone: the carried value read by something else in the body
// (attention's running max rescales the output), and a reduction whose
// combiner is not the accumulation's.
// CHECK-LABEL: tt.func @left_alone
// CHECK: scf.for {{.*}} -> (tensor<8xf32>, tensor<8x32xf32>)
// CHECK: "tt.reduce"
// CHECK: scf.for {{.*}} -> (tensor<8xf32>)
// CHECK: "tt.reduce"
tt.func @left_alone(%x: tensor<8x32xf32>, %init: tensor<8xf32>, %o: tensor<8x32xf32>)
    -> (tensor<8xf32>, tensor<8x32xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%m = %init, %acc = %o) -> (tensor<8xf32>, tensor<8x32xf32>) : i32 {
    %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x32xf32>) -> tensor<8xf32>
    %n = arith.maxnumf %m, %s : tensor<8xf32>
    %e = tt.expand_dims %m {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
    %b = tt.broadcast %e : tensor<8x1xf32> -> tensor<8x32xf32>
    %a2 = arith.mulf %acc, %b : tensor<8x32xf32>
    scf.yield %n, %a2 : tensor<8xf32>, tensor<8x32xf32>
  }
  %r2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%m = %init) -> (tensor<8xf32>) : i32 {
    %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x32xf32>) -> tensor<8xf32>
    %n = arith.addf %m, %s : tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  tt.return %r#0, %r#1, %r2 : tensor<8xf32>, tensor<8x32xf32>, tensor<8xf32>
}
