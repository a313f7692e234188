// RUN: pallas-opt %s -split-input-file -pallas-peel-loop-ends | FileCheck %s

// A sequential grid axis as a loop: the first program's select of the
// zeroed accumulator becomes the loop's initial value, the last program's
// store moves after the loop, on its result (the index math it reads is
// recomputed there).
// CHECK-LABEL: tt.func @grid_k
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK:       %[[R:.*]] = scf.for %{{.*}} = %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK-NOT:     arith.select
// CHECK:         %[[D:.*]] = tt.dot %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NOT:     scf.if
// CHECK:         scf.yield %[[D]]
// CHECK:       %[[P:.*]] = tt.splat %arg1
// CHECK:       %[[T:.*]] = arith.truncf %[[R]]
// CHECK:       tt.store %[[P]], %[[T]]
tt.func @grid_k(%x: !tt.ptr<f16>, %z: !tt.ptr<f16>, %old: tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c7 = arith.constant 7 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %old) -> (tensor<64x64xf32>) : i32 {
    %first = arith.cmpi eq, %k, %c0 : i32
    %a = arith.select %first, %zero, %acc : tensor<64x64xf32>
    %p = tt.splat %x : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %v = tt.load %p : tensor<64x64x!tt.ptr<f16>>
    %d = tt.dot %v, %v, %a : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %q = tt.splat %z : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %last = arith.cmpi eq, %k, %c7 : i32
    scf.if %last {
      %t = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
      tt.store %q, %t : tensor<64x64x!tt.ptr<f16>>
    }
    scf.yield %d : tensor<64x64xf32>
  }
  tt.return
}

// -----

// Bounds only known at run time (the loop may not run): both stay.
// CHECK-LABEL: tt.func @symbolic_bound
// CHECK: scf.for
// CHECK:   arith.select
// CHECK:   scf.if
tt.func @symbolic_bound(%x: !tt.ptr<f16>, %n: i32, %old: tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %old) -> (tensor<64x64xf32>) : i32 {
    %first = arith.cmpi eq, %k, %c0 : i32
    %a = arith.select %first, %zero, %acc : tensor<64x64xf32>
    %p = tt.splat %x : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %v = tt.load %p : tensor<64x64x!tt.ptr<f16>>
    %d = tt.dot %v, %v, %a : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %nm1 = arith.subi %n, %c1 : i32
    %last = arith.cmpi eq, %k, %nm1 : i32
    scf.if %last {
      %t = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
      tt.store %p, %t : tensor<64x64x!tt.ptr<f16>>
    }
    scf.yield %d : tensor<64x64xf32>
  }
  tt.return
}

// -----

// The branch reads a value the body does not yield (the loaded block), and
// a store follows it: it stays in the loop.
// CHECK-LABEL: tt.func @reads_unyielded
// CHECK: scf.for
// CHECK:   scf.if
// CHECK:   tt.store
tt.func @reads_unyielded(%x: !tt.ptr<f16>, %old: tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c7 = arith.constant 7 : i32
  %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %old) -> (tensor<64x64xf32>) : i32 {
    %p = tt.splat %x : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %v = tt.load %p : tensor<64x64x!tt.ptr<f16>>
    %d = tt.dot %v, %v, %acc : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %last = arith.cmpi eq, %k, %c7 : i32
    scf.if %last {
      tt.store %p, %v : tensor<64x64x!tt.ptr<f16>>
    }
    tt.store %p, %v : tensor<64x64x!tt.ptr<f16>>
    scf.yield %d : tensor<64x64xf32>
  }
  tt.return
}
