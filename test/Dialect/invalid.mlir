// RUN: pallas-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the pallas dialect: the ref type, the indexer
// syntax, and every op verifier. Cases written in the generic form build ops
// that the custom syntax cannot express.

//===----------------------------------------------------------------------===//
// !pallas.ref
//===----------------------------------------------------------------------===//

// expected-error @+1 {{ref dimensions must be positive, got 0}}
pallas.kernel @k(%r: !pallas.ref<4x0xf32>) {
  pallas.return
}

// -----

// expected-error @+1 {{unsupported ref element type 'ui32' (expected f64, f32, f16, bf16, f8E4M3FN, f8E5M2, i1, i8, i16, i32, i64 or a semaphore type)}}
pallas.kernel @k(%r: !pallas.ref<4xui32>) {
  pallas.return
}

// -----

// expected-error @+1 {{unsupported ref element type 'i4'}}
pallas.kernel @k(%r: !pallas.ref<4xi4>) {
  pallas.return
}

// -----

// expected-error @+1 {{unknown memory space 'hbm' (expected any, vmem, smem, gmem or regs)}}
pallas.kernel @k(%r: !pallas.ref<4xf32, hbm>) {
  pallas.return
}

// -----

// `none` is the default and is never written.
// expected-error @+1 {{unknown memory space 'none'}}
pallas.kernel @k(%r: !pallas.ref<4xf32, none>) {
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.kernel, pallas.run_scoped, terminators
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'pallas.kernel' op kernels return nothing; write results through output refs}}
pallas.kernel @k(%r: !pallas.ref<4xf32>) -> i32 {
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op needs a body}}
pallas.kernel @k(!pallas.ref<4xf32>)

// -----

// expected-error @+1 {{'pallas.kernel' op argument #1 must be a !pallas.ref or a semaphore, got 'tensor<4xf32>'}}
pallas.kernel @k(%r: !pallas.ref<4xf32>, %t: tensor<4xf32>) {
  pallas.return
}

// -----

func.func @f() {
  // expected-error @+1 {{'pallas.return' op expects parent op 'pallas.kernel'}}
  pallas.return
}

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.run_scoped' op scoped value #1 must be a !pallas.ref, a semaphore or a !plgpu.barrier, got 'i32'}}
  pallas.run_scoped (%a: !pallas.ref<8xf32, vmem>, %b: i32) {
  }
  pallas.return
}

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.run_scoped' op yields 1 value(s) whose types differ from the op's result types}}
  %x = pallas.run_scoped (%a: !pallas.ref<8xf32, vmem>) -> (f32) {
    %c = arith.constant 0 : i32
    pallas.yield %c : i32
  }
  pallas.return
}

// -----

pallas.kernel @k() {
  // A region without an explicit yield yields nothing.
  // expected-error @+1 {{'pallas.run_scoped' op yields 0 value(s) whose types differ from the op's result types}}
  %x = pallas.run_scoped (%a: !pallas.ref<8xf32, vmem>) -> (f32) {
  }
  pallas.return
}

// -----

pallas.kernel @k() {
  // The generic form has no implicit terminator: the region trait reports
  // it, not the op verifier.
  %x = "pallas.run_scoped"() ({
    // expected-error @+1 {{block with no terminator}}
    %c = arith.constant 1.0 : f32
  }) : () -> f32
  pallas.return
}

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.yield' op expects parent op 'pallas.run_scoped'}}
  pallas.yield
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %i = pallas.program_id -1 : i32
  pallas.return
}

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %n = pallas.num_programs -2 : i32
  pallas.return
}

//===----------------------------------------------------------------------===//
// Indexer syntax
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{expected indexers or '...' between '[' and ']'}}
  %v = pallas.load %r[] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{expected an indexer: an SSA value, an integer, 'ds(...)' or ':'}}
  %v = pallas.load %r[0, all] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{constant index must be non-negative}}
  %v = pallas.load %r[-1, :] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{slice start must be non-negative}}
  %v = pallas.load %r[0, ds(-2, 4)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{slice size must be positive}}
  %v = pallas.load %r[0, ds(0, 0)] : !pallas.ref<4x8xf32> -> tensor<0xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{slice stride must be positive}}
  %v = pallas.load %r[0, ds(%i, 4, 0)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// Indexers against the ref (shared by every indexed op)
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op has 1 indexer(s) for a ref of rank 2}}
  %v = pallas.load %r[0] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.store' op has 3 indexer(s) for a ref of rank 2}}
  pallas.store %r[0, 0, 0], %r : !pallas.ref<4x8xf32>, !pallas.ref<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = arith.constant 0 : i32
  // expected-error @+1 {{'pallas.load' op has 1 index operand(s) but its indexers use 0}}
  %v = "pallas.load"(%r, %i) <{indexers = array<i64>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!pallas.ref<4x8xf32>, i32) -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op has a malformed indexer array of 6 entries (4 per indexer)}}
  %v = "pallas.load"(%r) <{indexers = array<i64: 5, 0, 0, 1, 5, 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (!pallas.ref<4x8xf32>) -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op indexer #1 has unknown kind 6}}
  %v = "pallas.load"(%r) <{indexers = array<i64: 5, 0, 0, 1, 6, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (!pallas.ref<4x8xf32>) -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op indexer #1 has a negative start -3}}
  %v = "pallas.load"(%r) <{indexers = array<i64: 5, 0, 0, 1, 1, -3, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (!pallas.ref<4x8xf32>) -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op indexer #1 is a slice of size 0 and stride 1; both must be positive}}
  %v = "pallas.load"(%r) <{indexers = array<i64: 5, 0, 0, 1, 4, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (!pallas.ref<4x8xf32>) -> tensor<4x0xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>, %d: !pallas.ref<4xf32>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.async_copy' op has a malformed source indexer array of 1 entries (4 per indexer)}}
  "pallas.async_copy"(%r, %d, %s) <{src_indexers = array<i64: 5>, dst_indexers = array<i64>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>}> : (!pallas.ref<4x8xf32>, !pallas.ref<4xf32>, !pallas.dma_semaphore) -> ()
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op index 4 is out of bounds for dimension 0 of size 4}}
  %v = pallas.load %r[4, :] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // The last element read is 1 + 3 * 3 = 10.
  // expected-error @+1 {{'pallas.load' op slice ds(1, 4, 3) does not fit dimension 1 of size 8}}
  %v = pallas.load %r[0, ds(1, 4, 3)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.load' op slice of size 5 and stride 2 does not fit dimension 1 of size 8}}
  %v = pallas.load %r[0, ds(%i, 5, 2)] : !pallas.ref<4x8xf32> -> tensor<5xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<32xf32>) {
  %t = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.load' op tensor indexer #0 must be a ranked tensor of integers, got 'tensor<8xf32>'}}
  %v = pallas.load %r[%t] : !pallas.ref<32xf32>, tensor<8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{'pallas.load' op indexer #1 must be an integer or index, got 'f32'}}
  %v = pallas.load %r[0, %f] : !pallas.ref<4x8xf32>, f32 -> f32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = arith.constant 0 : index
  // The custom syntax types every `ds` start as i32.
  // expected-error @+1 {{'pallas.load' op slice start of indexer #0 must be i32, got 'index'}}
  %v = "pallas.load"(%r, %i) <{indexers = array<i64: 3, 0, 2, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!pallas.ref<4x8xf32>, index) -> tensor<2x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %a = pallas.iota 0 : tensor<4xi32>
  %b = pallas.iota 0 : tensor<3xi32>
  // expected-error @+1 {{'pallas.load' op tensor indexers do not broadcast together}}
  %v = pallas.load %r[%a, %b] : !pallas.ref<4x8xf32>, tensor<4xi32>, tensor<3xi32> -> tensor<4xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.load
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-error @+1 {{'pallas.load' op result type 'tensor<4xf32>' does not match the indexed ref: expected 'tensor<8xf32>'}}
  %v = pallas.load %r[0, :] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // A scalar access reads a scalar, not a 0-d tensor.
  // expected-error @+1 {{'pallas.load' op result type 'tensor<f32>' does not match the indexed ref: expected 'f32'}}
  %v = pallas.load %r[0, 0] : !pallas.ref<4x8xf32> -> tensor<f32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %a = pallas.iota 0 : tensor<4x1xi32>
  %b = pallas.iota 1 : tensor<1x8xi32>
  // Advanced indexers separated by a slice put the broadcast shape first.
  // expected-error @+1 {{'pallas.load' op result type 'tensor<8x4xf32>' does not match the indexed ref: expected 'tensor<4x8xf32>'}}
  %v = pallas.load %r[%a, %b] : !pallas.ref<4x8xf32>, tensor<4x1xi32>, tensor<1x8xi32> -> tensor<8x4xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  // expected-note @+1 {{prior use here}}
  %m = arith.constant dense<true> : tensor<4xi1>
  // The custom syntax gives the mask the result's shape.
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<8xi1>' vs 'tensor<4xi1>'}}
  %v = pallas.load %r[0, :] mask %m : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %m = arith.constant dense<true> : tensor<4xi1>
  // expected-error @+1 {{'pallas.load' op mask type 'tensor<4xi1>' does not match the accessed shape [8]: expected 'tensor<8xi1>'}}
  %v = "pallas.load"(%r, %m) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!pallas.ref<4x8xf32>, tensor<4xi1>) -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %o = arith.constant dense<0.0> : tensor<8xf32>
  // expected-error @+1 {{'other' needs a 'mask'}}
  %v = pallas.load %r[0, :] other %o : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %o = arith.constant dense<0.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.load' op 'other' needs a 'mask'}}
  %v = "pallas.load"(%r, %o) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (!pallas.ref<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %m = arith.constant dense<true> : tensor<8xi1>
  %o = arith.constant dense<0.0> : tensor<8xf16>
  // expected-error @+1 {{'pallas.load' op 'other' type 'tensor<8xf16>' must match the result type 'tensor<8xf32>'}}
  %v = "pallas.load"(%r, %m, %o) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (!pallas.ref<4x8xf32>, tensor<8xi1>, tensor<8xf16>) -> tensor<8xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.store, pallas.swap, atomics
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant dense<0.0> : tensor<8xf16>
  // expected-error @+1 {{'pallas.store' op value type 'tensor<8xf16>' does not match the indexed ref: expected 'tensor<8xf32>'}}
  pallas.store %r[0, :], %v : !pallas.ref<4x8xf32>, tensor<8xf16>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant dense<0.0> : tensor<8xf32>
  %m = arith.constant dense<true> : tensor<4xi1>
  // expected-error @+1 {{'pallas.store' op mask type 'tensor<4xi1>' does not match the accessed shape [8]: expected 'tensor<8xi1>'}}
  "pallas.store"(%r, %v, %m) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (!pallas.ref<4x8xf32>, tensor<8xf32>, tensor<4xi1>) -> ()
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant 0.0 : f32
  // expected-error @+1 {{'pallas.swap' op value type 'f32' does not match the indexed ref: expected 'tensor<4xf32>'}}
  %o = pallas.swap %r[:, 0], %v : !pallas.ref<4x8xf32>, f32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant dense<0.0> : tensor<8xf32>
  // The old value has the stored value's type; the custom syntax writes only
  // the latter.
  // expected-error @+1 {{'pallas.swap' op result type 'tensor<8xf64>' must match the value type 'tensor<8xf32>'}}
  %o = "pallas.swap"(%r, %v) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!pallas.ref<4x8xf32>, tensor<8xf32>) -> tensor<8xf64>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.atomic_rmw' op result type 'i64' must match the value type 'i32'}}
  %o = "pallas.atomic_rmw"(%r, %v) <{kind = 0 : i32, indexers = array<i64: 1, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!pallas.ref<8xi32>, i32) -> i64
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  // expected-error @+1 {{unknown atomic kind 'sub' (expected add, max, min, and, or, xor or xchg)}}
  %o = pallas.atomic_rmw sub %r[0], %v : !pallas.ref<8xi32>, i32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.atomic_rmw' op atomic or needs integers, got 'f32'}}
  %o = pallas.atomic_rmw or %r[...], %v : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant dense<1> : tensor<4xi32>
  // expected-error @+1 {{'pallas.atomic_rmw' op value type 'tensor<4xi32>' does not match the indexed ref: expected 'tensor<8xi32>'}}
  %o = pallas.atomic_rmw add %r[...], %v : !pallas.ref<8xi32>, tensor<4xi32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{'pallas.atomic_cas' op compare-and-swap needs i32 or i64 values, got 'f32'}}
  %o = pallas.atomic_cas %r[0], %c, %c : !pallas.ref<8xf32>, f32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %c = arith.constant 1 : i64
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.atomic_cas' op compare value type 'i64' must match the value type 'i32'}}
  %o = "pallas.atomic_cas"(%r, %c, %v) <{indexers = array<i64: 1, 0, 0, 1>}> : (!pallas.ref<8xi32>, i64, i32) -> i32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.atomic_cas' op result type 'i64' must match the value type 'i32'}}
  %o = "pallas.atomic_cas"(%r, %v, %v) <{indexers = array<i64: 1, 0, 0, 1>}> : (!pallas.ref<8xi32>, i32, i32) -> i64
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.ref_slice, pallas.async_copy, pallas.dma_wait
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%r: !pallas.ref<32xf32>) {
  %t = pallas.iota 0 : tensor<8xi32>
  // expected-error @+1 {{'pallas.ref_slice' op cannot take a view with a tensor indexer; use load}}
  %s = pallas.ref_slice %r[%t] : !pallas.ref<32xf32>, tensor<8xi32> -> !pallas.ref<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<64x128xf32, any>) {
  // The view keeps the memory space.
  // expected-error @+1 {{'pallas.ref_slice' op result type '!pallas.ref<8x128xf32>' does not match the view: expected '!pallas.ref<8x128xf32, any>'}}
  %s = pallas.ref_slice %r[ds(0, 8), :] : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xf32, vmem>, %s: !pallas.dma_semaphore) {
  %t = pallas.iota 0 : tensor<8xi32>
  // expected-error @+1 {{'pallas.async_copy' op copies take slices, not tensor indexers}}
  pallas.async_copy %h[%t] -> %v[...], %s : !pallas.ref<32xf32, any>, tensor<8xi32> -> !pallas.ref<8xf32, vmem>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<32x4xf32, any>, %v: !pallas.ref<8xf32, vmem>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.async_copy' op has 1 indexer(s) for a source of rank 2}}
  pallas.async_copy %h[ds(0, 8)] -> %v[...], %s : !pallas.ref<32x4xf32, any> -> !pallas.ref<8xf32, vmem>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8x2xf32, vmem>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.dma_wait' op has 1 indexer(s) for a destination of rank 2}}
  pallas.dma_wait %h[ds(0, 8)] -> %v[:], %s : !pallas.ref<32xf32, any> -> !pallas.ref<8x2xf32, vmem>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xf32, vmem>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.async_copy' op copies a [16] source into a [8] destination}}
  pallas.async_copy %h[ds(0, 16)] -> %v[...], %s : !pallas.ref<32xf32, any> -> !pallas.ref<8xf32, vmem>
  pallas.return
}

// -----

pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xbf16, vmem>, %s: !pallas.dma_semaphore) {
  // expected-error @+1 {{'pallas.dma_wait' op source element type 'f32' differs from destination's 'bf16'}}
  pallas.dma_wait %h[ds(8, 8)] -> %v[...], %s : !pallas.ref<32xf32, any> -> !pallas.ref<8xbf16, vmem>
  pallas.return
}

// -----

// expected-note @+1 {{prior use here}}
pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xf32, vmem>, %s: !pallas.semaphore) {
  // Copies signal a DMA semaphore.
  // expected-error @+1 {{use of value '%s' expects different type than prior uses: '!pallas.dma_semaphore' vs '!pallas.semaphore'}}
  pallas.async_copy %h[ds(0, 8)] -> %v[...], %s : !pallas.ref<32xf32, any> -> !pallas.ref<8xf32, vmem>
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.iota, pallas.broadcast, pallas.reshape, pallas.transpose,
// pallas.concatenate
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.iota' op dimension 2 is out of range for a result of rank 2}}
  %t = pallas.iota 2 : tensor<4x8xi32>
  pallas.return
}

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.iota' op result #0 must be ranked tensor of signless integer or index values, but got 'tensor<8xf32>'}}
  %t = pallas.iota 0 : tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%s: !pallas.semaphore) {
  // expected-error @+1 {{'pallas.broadcast' op input must be a scalar or a ranked tensor, got '!pallas.semaphore'}}
  %t = pallas.broadcast %s : !pallas.semaphore -> tensor<4xi32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.broadcast' op element type 'i32' differs from the result's 'i64'}}
  %t = pallas.broadcast %c : i32 -> tensor<4xi64>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.broadcast' op has 1 broadcast dim(s) for an input of rank 2}}
  %t = pallas.broadcast %v dims [0] : tensor<4x8xf32> -> tensor<4x8x2xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{'pallas.broadcast' op broadcast dim 2 is out of range for a result of rank 2}}
  %t = pallas.broadcast %v dims [2] : tensor<4xf32> -> tensor<4x4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x4xf32>
  // expected-error @+1 {{'pallas.broadcast' op broadcast dims must be strictly increasing}}
  %t = pallas.broadcast %v dims [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<2x4xf32>
  // expected-error @+1 {{'pallas.broadcast' op cannot broadcast rank 2 to the lower rank 1}}
  %t = pallas.broadcast %v : tensor<2x4xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4xf32>
  // Without dims the input aligns with the trailing result dims.
  // expected-error @+1 {{'pallas.broadcast' op input dim 0 of size 4 cannot broadcast to result dim 1 of size 8}}
  %t = pallas.broadcast %v : tensor<4xf32> -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{'pallas.reshape' op changes the element type from 'f32' to 'f16'}}
  %t = pallas.reshape %v : tensor<4xf32> -> tensor<2x2xf16>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.reshape' op cannot reshape 32 elements into 30}}
  %t = pallas.reshape %v : tensor<4x8xf32> -> tensor<5x6xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.transpose' op permutation has 3 entries for an input of rank 2}}
  %t = pallas.transpose %v [1, 0, 2] : tensor<4x8xf32> -> tensor<8x4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<2x4x8xf32>
  // expected-error @+1 {{'pallas.transpose' op permutation [2, 0, 2] is not a permutation of 0..2}}
  %t = pallas.transpose %v [2, 0, 2] : tensor<2x4x8xf32> -> tensor<8x2x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.transpose' op result type 'tensor<4x8xf32>' does not match the permuted input: expected 'tensor<8x4xf32>'}}
  %t = pallas.transpose %v [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  // expected-error @+1 {{'pallas.concatenate' op needs at least one input}}
  %t = "pallas.concatenate"() <{dim = 0 : i64}> : () -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.concatenate' op dimension 2 is out of range for inputs of rank 2}}
  %t = pallas.concatenate %v, %v {dim = 2 : i64} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4xf32>
  %b = arith.constant dense<1.0> : tensor<4xf16>
  // expected-error @+1 {{'pallas.concatenate' op inputs must share rank and element type}}
  %t = pallas.concatenate %a, %b {dim = 0 : i64} : tensor<4xf32>, tensor<4xf16> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<2x4xf32>
  // expected-error @+1 {{'pallas.concatenate' op inputs differ in dimension 1, which is not the concatenated dimension}}
  %t = pallas.concatenate %a, %b {dim = 0 : i64} : tensor<4x8xf32>, tensor<2x4xf32> -> tensor<6x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<4x2xf32>
  // expected-error @+1 {{'pallas.concatenate' op result type 'tensor<4x8xf32>' does not match: expected 'tensor<4x10xf32>'}}
  %t = pallas.concatenate %a, %b {dim = 1 : i64} : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x8xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.reduce, pallas.argmax, pallas.argmin, pallas.cumsum
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.reduce' op needs at least one axis}}
  %r = pallas.reduce sum %v [] : tensor<4x8xf32> -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.reduce' op axis 2 is out of range for an input of rank 2}}
  %r = pallas.reduce max %v [2] : tensor<4x8xf32> -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.reduce' op axis -1 is out of range for an input of rank 2}}
  %r = pallas.reduce max %v [-1] : tensor<4x8xf32> -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.reduce' op axis 1 appears twice}}
  %r = pallas.reduce min %v [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.reduce' op result type 'tensor<8xf32>' does not match the reduction: expected 'tensor<4xf32>'}}
  %r = pallas.reduce sum %v [1] : tensor<4x8xf32> -> tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  // Reducing every axis gives a scalar.
  // expected-error @+1 {{'pallas.reduce' op result type 'tensor<f32>' does not match the reduction: expected 'f32'}}
  %r = pallas.reduce prod %v [0] : tensor<8xf32> -> tensor<f32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.reduce' op reduction 'xor' needs integers or i1, got 'f32'}}
  %r = pallas.reduce xor %v [0] : tensor<8xf32> -> f32
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, prod, max, min, and, or, xor]}}
  %r = pallas.reduce mean %v [0] : tensor<8xf32> -> f32
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.argmax' op result type 'tensor<8xi32>' does not match: expected 'tensor<4xi32>'}}
  %r = pallas.argmax %v[1] : tensor<4x8xf32> -> tensor<8xi32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.argmin' op axis 2 is out of range for an input of rank 2}}
  %r = pallas.argmin %v[2] : tensor<4x8xf32> -> tensor<4x8xi32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.argmax' op result #0 must be 32-bit signless integer or tensor of 32-bit signless integer values, but got 'i64'}}
  %r = pallas.argmax %v[0] : tensor<8xf32> -> i64
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'pallas.cumsum' op axis 2 is out of range for an input of rank 2}}
  %r = pallas.cumsum %v[2] : tensor<4x8xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.dot
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<2x4x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x16xf32>
  // expected-error @+1 {{'pallas.dot' op operands must both be 2-D, or both 3-D with a leading batch dim; got ranks 3 and 2}}
  %d = pallas.dot %a, %b : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.dot' op operands must both be 2-D, or both 3-D with a leading batch dim; got ranks 1 and 1}}
  %d = pallas.dot %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf16>
  %b = arith.constant dense<1.0> : tensor<8x16xbf16>
  // expected-error @+1 {{'pallas.dot' op operand element types differ: 'f16' and 'bf16'}}
  %d = pallas.dot %a, %b : tensor<4x8xf16>, tensor<8x16xbf16> -> tensor<4x16xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<16x8xf32>
  // expected-error @+1 {{'pallas.dot' op contracting dimensions differ: lhs has K = 8, rhs has K = 16}}
  %d = pallas.dot %a, %b : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  // With transpose_lhs the lhs is [K, M].
  // expected-error @+1 {{'pallas.dot' op contracting dimensions differ: lhs has K = 4, rhs has K = 8}}
  %d = pallas.dot %a, %a {transpose_lhs, transpose_rhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x4xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<2x4x8xf32>
  %b = arith.constant dense<1.0> : tensor<3x8x16xf32>
  // expected-error @+1 {{'pallas.dot' op batch dimensions differ: 2 and 3}}
  %d = pallas.dot %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1> : tensor<4x8xi64>
  // expected-error @+1 {{'pallas.dot' op unsupported operand element type 'i64'}}
  %d = pallas.dot %a, %a {transpose_rhs} : tensor<4x8xi64>, tensor<4x8xi64> -> tensor<4x4xi64>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xbf16>
  %b = arith.constant dense<1.0> : tensor<8x16xbf16>
  // bf16 accumulates in f32.
  // expected-error @+1 {{'pallas.dot' op result type 'tensor<4x16xbf16>' does not match: the product of 'tensor<4x8xbf16>' and 'tensor<8x16xbf16>' accumulates as 'tensor<4x16xf32>'}}
  %d = pallas.dot %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1> : tensor<4x8xi8>
  %b = arith.constant dense<1> : tensor<8x16xi8>
  %c = arith.constant dense<0> : tensor<4x16xi16>
  // expected-error @+1 {{'pallas.dot' op accumulator type 'tensor<4x16xi16>' must match the result type 'tensor<4x16xi32>'}}
  %d = pallas.dot %a, %b acc %c : tensor<4x8xi8>, tensor<8x16xi8>, tensor<4x16xi16> -> tensor<4x16xi32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x16xf32>
  // expected-error @+1 {{'pallas.dot' op precision must be "default", "high" or "highest", got "fast"}}
  %d = pallas.dot %a, %b {precision = "fast"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// Hints, synchronisation, debugging
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{'pallas.multiple_of' op applies to integers, got 'tensor<8xf32>'}}
  %h = pallas.multiple_of %v, 8 : tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'pallas.max_contiguous' op applies to integers, got 'f32'}}
  %h = pallas.max_contiguous %v, 8 : f32
  pallas.return
}

// -----

pallas.kernel @k() {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.multiple_of' op attribute 'value' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %h = pallas.multiple_of %i, 0 : i32
  pallas.return
}

// -----

pallas.kernel @k(%r: !pallas.ref<4xi32>) {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.semaphore_signal' op operand #0 must be a regular (counting) semaphore or a semaphore signalled by DMA completion, but got '!pallas.ref<4xi32>'}}
  pallas.semaphore_signal %r, %c : !pallas.ref<4xi32>
  pallas.return
}

// -----

pallas.kernel @k() {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.debug_print' op format has 2 placeholder(s) for 1 value(s)}}
  pallas.debug_print "{} and {}", %i : i32
  pallas.return
}

//===----------------------------------------------------------------------===//
// pallas.block
//===----------------------------------------------------------------------===//

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.block' op needs one block index and one block size per array dimension (rank 2)}}
  %b = pallas.block %a[%i] [8, 8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.block' op needs one block index and one block size per array dimension (rank 2)}}
  %b = pallas.block %a[%i, %i] [8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8x8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.block' op squeezed dim 2 is invalid}}
  %b = pallas.block %a[%i, %i] [1, 8] squeezed [2] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.block' op squeezed dim 1 must have block size 1}}
  %b = pallas.block %a[%i, %i] [1, 8] squeezed [1] : !pallas.ref<64x64xf32, any> -> !pallas.ref<1xf32>
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.block' op block sizes must be positive}}
  %b = pallas.block %a[%i, %i] [0, 8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  // expected-error @+1 {{'pallas.block' op result type '!pallas.ref<8x16xf32>' does not match the block: expected '!pallas.ref<8x8xf32, any>'}}
  %b = pallas.block %a[%i, %i] [8, 8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8x16xf32>
  pallas.return
}

// -----

pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  // Block indices are i32.
  // expected-note @+1 {{prior use here}}
  %i = arith.constant 0 : index
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: 'i32' vs 'index'}}
  %b = pallas.block %a[%i, %i] [8, 8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8x8xf32>
  pallas.return
}

// -----

// The dialects pallasc lowers to are not for kernels.
pallas.kernel @internal_gpu(%x: !pallas.ref<8xf32>) {
  // expected-error @+1 {{'pallas_gpu.alloc_ring' op is not allowed in a pallas.kernel: 'pallas_gpu' is a dialect pallasc lowers to, not one kernels are written in}}
  %r = pallas_gpu.alloc_ring : <2, tensor<16x16xf16>>
  pallas.return
}

// -----

pallas.kernel @internal_tt(%x: !pallas.ref<8xf32>) {
  // expected-error @+1 {{'tt.get_program_id' op is not allowed in a pallas.kernel: 'tt' is a dialect pallasc lowers to}}
  %p = tt.get_program_id x : i32
  pallas.return
}
