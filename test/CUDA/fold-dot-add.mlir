// RUN: pallas-opt %s --pallas-fold-dot-add | FileCheck %s

// attention's `acc * alpha + P V`: the product accumulates into acc * alpha.
// CHECK-LABEL: tt.func @accumulate
// CHECK: %[[S:.*]] = arith.mulf %arg2, %arg3
// CHECK-NEXT: %[[D:.*]] = tt.dot %arg0, %arg1, %[[S]]
// CHECK-NEXT: tt.return %[[D]]
tt.func @accumulate(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %acc: tensor<64x64xf32>,
                    %alpha: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tt.dot %a, %b, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
  %s = arith.mulf %acc, %alpha : tensor<64x64xf32>
  %r = arith.addf %s, %d : tensor<64x64xf32>
  tt.return %r : tensor<64x64xf32>
}

// A loop's carried accumulator on either side of the addition.
// CHECK-LABEL: tt.func @carried
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %arg2)
// CHECK-NEXT: %[[D:.*]] = tt.dot %arg0, %arg1, %[[ACC]]
// CHECK-NEXT: scf.yield %[[D]]
tt.func @carried(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %init: tensor<64x64xf32>)
    -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32>) : i32 {
    %d = tt.dot %a, %b, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
    %n = arith.addf %d, %acc : tensor<64x64xf32>
    scf.yield %n : tensor<64x64xf32>
  }
  tt.return %r : tensor<64x64xf32>
}

// Left alone: a dot that starts from something else than zero, and a dot
// whose result has another use.
// CHECK-LABEL: tt.func @left_alone
// CHECK: %[[D1:.*]] = tt.dot %arg0, %arg1, %arg2
// CHECK: arith.addf %[[D1]], %arg2
// CHECK: %[[D2:.*]] = tt.dot %arg0, %arg1, %cst
// CHECK: arith.addf %[[D2]], %arg2
// CHECK: arith.mulf %[[D2]]
tt.func @left_alone(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %x: tensor<64x64xf32>)
    -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d1 = tt.dot %a, %b, %x : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
  %r1 = arith.addf %d1, %x : tensor<64x64xf32>
  %d2 = tt.dot %a, %b, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
  %r2 = arith.addf %d2, %x : tensor<64x64xf32>
  %r3 = arith.mulf %d2, %x : tensor<64x64xf32>
  tt.return %r1, %r2, %r3 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
