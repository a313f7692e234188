// RUN: pallas-opt %s -pallas-stream-dot-k=k-chunk=64 | FileCheck %s

// A dot of two whole loads becomes a loop over K chunks with an accumulator.
// CHECK-LABEL: pallas.kernel @mm
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<32x32xf32>)  : i32 {
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK: pallas.load %arg0[:, ds(%[[OFF]], 64)] : !pallas.ref<32x256xf32> -> tensor<32x64xf32>
// CHECK: pallas.load %arg1[ds(%[[OFF]], 64), :] : !pallas.ref<256x32xf32> -> tensor<64x32xf32>
// CHECK: pallas.dot %{{.*}}, %{{.*}} acc %[[ACC]]
// CHECK: pallas.store %arg2[...], %[[R]]
pallas.kernel @mm(%x: !pallas.ref<32x256xf32>, %y: !pallas.ref<256x32xf32>, %z: !pallas.ref<32x32xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<32x256xf32> -> tensor<32x256xf32>
  %b = pallas.load %y[...] : !pallas.ref<256x32xf32> -> tensor<256x32xf32>
  %c = pallas.dot %a, %b : tensor<32x256xf32>, tensor<256x32xf32> -> tensor<32x32xf32>
  pallas.store %z[...], %c : !pallas.ref<32x32xf32>, tensor<32x32xf32>
  pallas.return
}

// A store to an operand's ref between its load and the dot keeps the dot.
// CHECK-LABEL: pallas.kernel @written
// CHECK-NOT: scf.for
pallas.kernel @written(%x: !pallas.ref<32x256xf32>, %y: !pallas.ref<256x32xf32>, %z: !pallas.ref<32x32xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<32x256xf32> -> tensor<32x256xf32>
  %b = pallas.load %y[...] : !pallas.ref<256x32xf32> -> tensor<256x32xf32>
  %zero = arith.constant dense<0.0> : tensor<32x256xf32>
  pallas.store %x[...], %zero : !pallas.ref<32x256xf32>, tensor<32x256xf32>
  %c = pallas.dot %a, %b : tensor<32x256xf32>, tensor<256x32xf32> -> tensor<32x32xf32>
  pallas.store %z[...], %c : !pallas.ref<32x32xf32>, tensor<32x32xf32>
  pallas.return
}

// Loads of a row slice from a computed start (x_ref[pl.ds(r, 32), :]) and
// of a column slice at a constant start read the whole K too: the chunks
// keep their slices.
// CHECK-LABEL: pallas.kernel @slices
// CHECK: %[[R:.*]] = pallas.program_id 0
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK: pallas.load %arg0[ds(%[[R]], 32), ds(%[[OFF]], 64)] : !pallas.ref<128x256xf32> -> tensor<32x64xf32>
// CHECK: pallas.load %arg1[ds(%[[OFF]], 64), ds(32, 32)] : !pallas.ref<256x64xf32> -> tensor<64x32xf32>
pallas.kernel @slices(%x: !pallas.ref<128x256xf32>, %y: !pallas.ref<256x64xf32>, %z: !pallas.ref<32x32xf32>) {
  %r = pallas.program_id 0 : i32
  %a = pallas.load %x[ds(%r, 32), :] : !pallas.ref<128x256xf32> -> tensor<32x256xf32>
  %b = pallas.load %y[:, ds(32, 32)] : !pallas.ref<256x64xf32> -> tensor<256x32xf32>
  %c = pallas.dot %a, %b : tensor<32x256xf32>, tensor<256x32xf32> -> tensor<32x32xf32>
  pallas.store %z[...], %c : !pallas.ref<32x32xf32>, tensor<32x32xf32>
  pallas.return
}

// A load reading part of K (a slice of the K dim) keeps the dot.
// CHECK-LABEL: pallas.kernel @part_of_k
// CHECK-NOT: scf.for
pallas.kernel @part_of_k(%x: !pallas.ref<32x512xf32>, %y: !pallas.ref<256x32xf32>, %z: !pallas.ref<32x32xf32>) {
  %a = pallas.load %x[:, ds(0, 256)] : !pallas.ref<32x512xf32> -> tensor<32x256xf32>
  %b = pallas.load %y[...] : !pallas.ref<256x32xf32> -> tensor<256x32xf32>
  %c = pallas.dot %a, %b : tensor<32x256xf32>, tensor<256x32xf32> -> tensor<32x32xf32>
  pallas.store %z[...], %c : !pallas.ref<32x32xf32>, tensor<32x32xf32>
  pallas.return
}
