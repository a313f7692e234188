// RUN: pallas-opt %s -split-input-file -verify-diagnostics

// Inputs found by test/fuzz/fuzz-parser.cpp that crashed a verifier or got
// past it; each is now a diagnostic.

//===----------------------------------------------------------------------===//
// A required operand's segment in operandSegmentSizes left empty: ODS checks
// only the sum and the optional operands, and the accessor read past the
// operands.
//===----------------------------------------------------------------------===//

pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.atomic_rmw' op operand group 'value' requires exactly 1 element, but found 0}}
  %o = "pallas.atomic_rmw"(%r, %v) <{kind = 0 : i32, indexers = array<i64: 1, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!pallas.ref<8xi32>, i32) -> i32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %i = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.load' op operand group 'ref' requires exactly 1 element, but found 0}}
  %v = "pallas.load"(%i) <{indexers = array<i64: 0, 0, 0, 1>, operandSegmentSizes = array<i32: 0, 1, 0, 0>}> : (i32) -> f32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'pallas.store' op operand group 'value' requires exactly 1 element, but found 2}}
  "pallas.store"(%r, %v, %v) <{indexers = array<i64: 1, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 2, 0>}> : (!pallas.ref<8xf32>, f32, f32) -> ()
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'pallas.swap' op operand group 'ref' requires exactly 1 element, but found 0}}
  %o = "pallas.swap"(%v, %v) <{indexers = array<i64>, operandSegmentSizes = array<i32: 0, 1, 1, 0>}> : (f32, f32) -> f32
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<8xf32>, %b: !pallas.ref<8xf32>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.async_copy' op operand group 'sem' requires exactly 1 element, but found 0}}
  "pallas.async_copy"(%a, %a, %b) <{src_indexers = array<i64>, dst_indexers = array<i64>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!pallas.ref<8xf32>, !pallas.ref<8xf32>, !pallas.ref<8xf32>) -> ()
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<8xf32>, %b: !pallas.ref<8xf32>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.dma_wait' op operand group 'dst' requires exactly 1 element, but found 0}}
  "pallas.dma_wait"(%a, %a, %s) <{src_indexers = array<i64>, dst_indexers = array<i64>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}> : (!pallas.ref<8xf32>, !pallas.ref<8xf32>, !pallas.dma_semaphore) -> ()
  pallas.return
}

//===----------------------------------------------------------------------===//
// Slice bounds: `start + (size - 1) * stride` overflowed int64 and wrapped
// negative, so slices far out of bounds verified.
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%h: !pallas.ref<64xf32>) {
  // expected-error @+1 {{'pallas.ref_slice' op slice ds(9223372036854775807, 2, 1) does not fit dimension 0 of size 64}}
  %s = pallas.ref_slice %h[ds(9223372036854775807, 2)] : !pallas.ref<64xf32> -> !pallas.ref<2xf32>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<64xf32>) {
  // expected-error @+1 {{'pallas.load' op slice ds(9223372036854775800, 3, 4) does not fit dimension 0 of size 64}}
  %t = pallas.load %h[ds(9223372036854775800, 3, 4)] : !pallas.ref<64xf32> -> tensor<3xf32>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<64xf32>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.load' op slice of size 3 and stride 9223372036854775807 does not fit dimension 0 of size 64}}
  %u = pallas.load %h[ds(%i, 3, 9223372036854775807)] : !pallas.ref<64xf32> -> tensor<3xf32>
  pallas.return
}
