// RUN: pallas-opt %s | pallas-opt | FileCheck %s
// RUN: pallas-opt %s -mlir-print-op-generic | pallas-opt | FileCheck %s

// Round trip of every op of the pallas dialect: the custom syntax parses,
// prints in the form pinned below, and the printed form (and the generic
// form) parses back to the same text.

//===----------------------------------------------------------------------===//
// Types and kernels
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @types(
// CHECK-SAME: %arg0: !pallas.ref<4x8xf32>,
// CHECK-SAME: %arg1: !pallas.ref<8x128xbf16, vmem>,
// CHECK-SAME: %arg2: !pallas.ref<16xi32, smem>,
// CHECK-SAME: %arg3: !pallas.ref<64x128xf16, any>,
// CHECK-SAME: %arg4: !pallas.ref<32xi64, gmem>,
// CHECK-SAME: %arg5: !pallas.ref<f64>,
// CHECK-SAME: %arg6: !pallas.ref<2x4xf8E4M3FN>,
// CHECK-SAME: %arg7: !pallas.ref<8xf8E5M2, vmem>,
// CHECK-SAME: %arg8: !pallas.ref<8xi1>,
// CHECK-SAME: %arg9: !pallas.ref<8xi8>,
// CHECK-SAME: %arg10: !pallas.ref<8xi16>,
// CHECK-SAME: %arg11: !pallas.ref<2x!pallas.dma_semaphore, smem>,
// CHECK-SAME: %arg12: !pallas.semaphore,
// CHECK-SAME: %arg13: !pallas.dma_semaphore) {
// CHECK-NEXT:   pallas.return
// CHECK-NEXT: }
pallas.kernel @types(%a: !pallas.ref<4x8xf32>, %b: !pallas.ref<8x128xbf16, vmem>,
                     %c: !pallas.ref<16xi32, smem>, %d: !pallas.ref<64x128xf16, any>,
                     %e: !pallas.ref<32xi64, gmem>, %f: !pallas.ref<f64>,
                     %g: !pallas.ref<2x4xf8E4M3FN>, %h: !pallas.ref<8xf8E5M2, vmem>,
                     %i: !pallas.ref<8xi1>, %j: !pallas.ref<8xi8>, %k: !pallas.ref<8xi16>,
                     %l: !pallas.ref<2x!pallas.dma_semaphore, smem>,
                     %m: !pallas.semaphore, %n: !pallas.dma_semaphore) {
  pallas.return
}

// CHECK-LABEL: pallas.kernel private @attributes(%arg0: !pallas.ref<4xf32>) attributes {note = "x"} {
// CHECK-NEXT:   pallas.return {note = "y"}
pallas.kernel private @attributes(%a: !pallas.ref<4xf32>) attributes {note = "x"} {
  pallas.return {note = "y"}
}

// Kernels share a module with func.func functions.
// CHECK-LABEL: func.func @index_map
// CHECK-LABEL: pallas.kernel @no_args() {
func.func @index_map(%x: i32) -> i32 {
  return %x : i32
}
pallas.kernel @no_args() {
  pallas.return
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @grid(
// CHECK: %{{.*}} = pallas.program_id 0 : i32
// CHECK: %{{.*}} = pallas.program_id 2 : i32
// CHECK: %{{.*}} = pallas.num_programs 1 : i32
pallas.kernel @grid(%o: !pallas.ref<3xi32, smem>) {
  %i = pallas.program_id 0 : i32
  %k = pallas.program_id 2 : i32
  %n = pallas.num_programs 1 : i32
  pallas.return
}

//===----------------------------------------------------------------------===//
// Loads and indexers
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @loads(
// CHECK-SAME: %arg0: !pallas.ref<4x8xf32>, %arg1: !pallas.ref<32xi32, gmem>, %arg2: !pallas.ref<4x8x16xf32>, %arg3: !pallas.ref<f32>
pallas.kernel @loads(%r: !pallas.ref<4x8xf32>, %g: !pallas.ref<32xi32, gmem>,
                     %r3: !pallas.ref<4x8x16xf32>, %r0: !pallas.ref<f32>) {
  // CHECK: %[[I:.*]] = pallas.program_id 0 : i32
  %i = pallas.program_id 0 : i32
  // CHECK: %[[IX:.*]] = arith.index_cast
  %ix = arith.index_cast %i : i32 to index
  // CHECK: %[[I64:.*]] = arith.extsi
  %i64 = arith.extsi %i : i32 to i64

  // The whole ref.
  // CHECK: pallas.load %arg0[...] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %whole = pallas.load %r[...] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  // CHECK: pallas.load %arg3[...] : !pallas.ref<f32> -> f32
  %rank0 = pallas.load %r0[...] : !pallas.ref<f32> -> f32

  // Scalar indexers drop their dimension and have their type written.
  // CHECK: pallas.load %arg0[%[[I]], :] : !pallas.ref<4x8xf32>, i32 -> tensor<8xf32>
  %row = pallas.load %r[%i, :] : !pallas.ref<4x8xf32>, i32 -> tensor<8xf32>
  // CHECK: pallas.load %arg0[:, %[[IX]]] : !pallas.ref<4x8xf32>, index -> tensor<4xf32>
  %col = pallas.load %r[:, %ix] : !pallas.ref<4x8xf32>, index -> tensor<4xf32>
  // CHECK: pallas.load %arg0[%[[I]], %[[I64]]] : !pallas.ref<4x8xf32>, i32, i64 -> f32
  %elt = pallas.load %r[%i, %i64] : !pallas.ref<4x8xf32>, i32, i64 -> f32
  // CHECK: pallas.load %arg0[3, 7] : !pallas.ref<4x8xf32> -> f32
  %cst = pallas.load %r[3, 7] : !pallas.ref<4x8xf32> -> f32

  // Slices: `ds(start, size[, stride])`; a start operand is an i32 whose type
  // is not written; a stride of 1 is not printed.
  // CHECK: pallas.load %arg0[2, ds(%[[I]], 4)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  %ds = pallas.load %r[2, ds(%i, 4)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  // CHECK: pallas.load %arg0[:, ds(%[[I]], 4, 2)] : !pallas.ref<4x8xf32> -> tensor<4x4xf32>
  %dss = pallas.load %r[:, ds(%i, 4, 2)] : !pallas.ref<4x8xf32> -> tensor<4x4xf32>
  // CHECK: pallas.load %arg0[ds(0, 2, 2), ds(1, 7)] : !pallas.ref<4x8xf32> -> tensor<2x7xf32>
  %dsc = pallas.load %r[ds(0, 2, 2), ds(1, 7, 1)] : !pallas.ref<4x8xf32> -> tensor<2x7xf32>
  // CHECK: pallas.load %arg0[ds(0, 4), ds(0, 8)] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %dse = pallas.load %r[ds(0, 4, 1), ds(0, 8)] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  // CHECK: pallas.load %arg0[:, :] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %full = pallas.load %r[:, :] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>

  // Tensor indexers gather; they broadcast together (NumPy advanced
  // indexing).
  // CHECK: %[[T:.*]] = pallas.iota 0 : tensor<8xi32>
  %t = pallas.iota 0 : tensor<8xi32>
  // CHECK: pallas.load %arg1[%[[T]]] : !pallas.ref<32xi32, gmem>, tensor<8xi32> -> tensor<8xi32>
  %gather = pallas.load %g[%t] : !pallas.ref<32xi32, gmem>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: %[[TA:.*]] = pallas.iota 0 : tensor<4x1xi32>
  // CHECK: %[[TB:.*]] = pallas.iota 1 : tensor<1x8xi32>
  %ta = pallas.iota 0 : tensor<4x1xi32>
  %tb = pallas.iota 1 : tensor<1x8xi32>
  // CHECK: pallas.load %arg0[%[[TA]], %[[TB]]] : !pallas.ref<4x8xf32>, tensor<4x1xi32>, tensor<1x8xi32> -> tensor<4x8xf32>
  %g2 = pallas.load %r[%ta, %tb] : !pallas.ref<4x8xf32>, tensor<4x1xi32>, tensor<1x8xi32> -> tensor<4x8xf32>
  // Adjacent advanced indexers keep their place ...
  // CHECK: pallas.load %arg2[:, %[[T]], 3] : !pallas.ref<4x8x16xf32>, tensor<8xi32> -> tensor<4x8xf32>
  %adj = pallas.load %r3[:, %t, 3] : !pallas.ref<4x8x16xf32>, tensor<8xi32> -> tensor<4x8xf32>
  // ... separated ones go first.
  // CHECK: pallas.load %arg2[%[[T]], ds(0, 4), %[[I]]] : !pallas.ref<4x8x16xf32>, tensor<8xi32>, i32 -> tensor<8x4xf32>
  %sep = pallas.load %r3[%t, ds(0, 4), %i] : !pallas.ref<4x8x16xf32>, tensor<8xi32>, i32 -> tensor<8x4xf32>

  // Masks, and `other` for the masked-off lanes.
  // CHECK: %[[M:.*]] = arith.constant dense<true> : tensor<8xi1>
  %m = arith.constant dense<true> : tensor<8xi1>
  // CHECK: pallas.load %arg1[%[[T]]] mask %[[M]] : !pallas.ref<32xi32, gmem>, tensor<8xi32> -> tensor<8xi32>
  %masked = pallas.load %g[%t] mask %m : !pallas.ref<32xi32, gmem>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: %[[O:.*]] = arith.constant dense<-1> : tensor<8xi32>
  %o = arith.constant dense<-1> : tensor<8xi32>
  // CHECK: pallas.load %arg1[ds(8, 8)] mask %[[M]] other %[[O]] : !pallas.ref<32xi32, gmem> -> tensor<8xi32>
  %other = pallas.load %g[ds(8, 8)] mask %m other %o : !pallas.ref<32xi32, gmem> -> tensor<8xi32>
  // CHECK: %[[MS:.*]] = arith.constant true
  %ms = arith.constant true
  // CHECK: pallas.load %arg0[%[[I]], 0] mask %[[MS]] : !pallas.ref<4x8xf32>, i32 -> f32
  %smask = pallas.load %r[%i, 0] mask %ms : !pallas.ref<4x8xf32>, i32 -> f32

  // Other attributes are kept; the indexers are not repeated.
  // CHECK: pallas.load %arg0[1, :] {note = "x"} : !pallas.ref<4x8xf32> -> tensor<8xf32>
  %attr = pallas.load %r[1, :] {note = "x"} : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// Stores, swap and atomics
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @writes(
pallas.kernel @writes(%r: !pallas.ref<4x8xf32>, %g: !pallas.ref<32xi32, gmem>,
                      %h: !pallas.ref<16xi64>) {
  %i = pallas.program_id 0 : i32
  %t = pallas.iota 0 : tensor<8xi32>
  %m = arith.constant dense<true> : tensor<8xi1>
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %vi = arith.constant dense<1> : tensor<8xi32>
  %f = arith.constant 2.0 : f32
  // CHECK-DAG: %[[I:.*]] = pallas.program_id 0 : i32
  // CHECK-DAG: %[[T:.*]] = pallas.iota 0 : tensor<8xi32>
  // CHECK-DAG: %[[M:.*]] = arith.constant dense<true> : tensor<8xi1>
  // CHECK-DAG: %[[V:.*]] = arith.constant dense<1.000000e+00> : tensor<8xf32>
  // CHECK-DAG: %[[VI:.*]] = arith.constant dense<1> : tensor<8xi32>
  // CHECK-DAG: %[[F:.*]] = arith.constant 2.000000e+00 : f32

  // CHECK: pallas.store %arg0[1, :], %[[V]] : !pallas.ref<4x8xf32>, tensor<8xf32>
  pallas.store %r[1, :], %v : !pallas.ref<4x8xf32>, tensor<8xf32>
  // CHECK: pallas.store %arg0[%[[I]], 2], %[[F]] : !pallas.ref<4x8xf32>, i32, f32
  pallas.store %r[%i, 2], %f : !pallas.ref<4x8xf32>, i32, f32
  // CHECK: pallas.store %arg1[%[[T]]], %[[VI]] mask %[[M]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  pallas.store %g[%t], %vi mask %m : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  // CHECK: pallas.store %arg1[ds(%[[I]], 8, 3)], %[[VI]] {note = "x"} : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  pallas.store %g[ds(%i, 8, 3)], %vi {note = "x"} : !pallas.ref<32xi32, gmem>, tensor<8xi32>

  // CHECK: %{{.*}} = pallas.swap %arg0[%[[I]], :], %[[V]] mask %[[M]] : !pallas.ref<4x8xf32>, i32, tensor<8xf32>
  %old = pallas.swap %r[%i, :], %v mask %m : !pallas.ref<4x8xf32>, i32, tensor<8xf32>
  // CHECK: %{{.*}} = pallas.swap %arg0[0, 0], %[[F]] : !pallas.ref<4x8xf32>, f32
  %olds = pallas.swap %r[0, 0], %f : !pallas.ref<4x8xf32>, f32

  // CHECK: pallas.atomic_rmw add %arg1[%[[T]]], %[[VI]] mask %[[M]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  %a0 = pallas.atomic_rmw add %g[%t], %vi mask %m : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw max %arg1[ds(0, 8)], %[[VI]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a1 = pallas.atomic_rmw max %g[ds(0, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw min %arg1[ds(8, 8)], %[[VI]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a2 = pallas.atomic_rmw min %g[ds(8, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw and %arg1[ds(16, 8)], %[[VI]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a3 = pallas.atomic_rmw and %g[ds(16, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw or %arg1[ds(24, 8)], %[[VI]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a4 = pallas.atomic_rmw or %g[ds(24, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw xor %arg1[%[[T]]], %[[VI]] : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  %a5 = pallas.atomic_rmw xor %g[%t], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw xchg %arg1[%[[T]]], %[[VI]] {note = "x"} : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  %a6 = pallas.atomic_rmw xchg %g[%t], %vi {note = "x"} : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  // CHECK: pallas.atomic_rmw add %arg0[%[[I]], 5], %[[F]] : !pallas.ref<4x8xf32>, i32, f32
  %a7 = pallas.atomic_rmw add %r[%i, 5], %f : !pallas.ref<4x8xf32>, i32, f32

  %c = arith.constant 0 : i32
  %c64 = arith.constant 0 : i64
  // CHECK-DAG: %[[C:.*]] = arith.constant 0 : i32
  // CHECK-DAG: %[[C64:.*]] = arith.constant 0 : i64
  // CHECK: %{{.*}} = pallas.atomic_cas %arg1[%[[I]]], %[[C]], %[[I]] : !pallas.ref<32xi32, gmem>, i32, i32
  %cas = pallas.atomic_cas %g[%i], %c, %i : !pallas.ref<32xi32, gmem>, i32, i32
  // CHECK: %{{.*}} = pallas.atomic_cas %arg2[3], %[[C64]], %[[C64]] : !pallas.ref<16xi64>, i64
  %cas64 = pallas.atomic_cas %h[3], %c64, %c64 : !pallas.ref<16xi64>, i64
  pallas.return
}

//===----------------------------------------------------------------------===//
// Views, copies and scoped scratch
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @views(
pallas.kernel @views(%h: !pallas.ref<64x128xf32, any>, %v: !pallas.ref<8x128xf32, vmem>,
                     %sem: !pallas.dma_semaphore) {
  // CHECK: %[[I:.*]] = pallas.program_id 0 : i32
  %i = pallas.program_id 0 : i32
  // CHECK: pallas.ref_slice %arg0[ds(%[[I]], 8), :] : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, any>
  %s0 = pallas.ref_slice %h[ds(%i, 8), :] : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, any>
  // CHECK: pallas.ref_slice %arg0[%[[I]], ds(0, 64, 2)] : !pallas.ref<64x128xf32, any>, i32 -> !pallas.ref<64xf32, any>
  %s1 = pallas.ref_slice %h[%i, ds(0, 64, 2)] : !pallas.ref<64x128xf32, any>, i32 -> !pallas.ref<64xf32, any>
  // CHECK: pallas.ref_slice %arg1[3, 4] : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<f32, vmem>
  %s2 = pallas.ref_slice %v[3, 4] : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<f32, vmem>

  // CHECK: pallas.async_copy %arg0[ds(%[[I]], 8), :] -> %arg1[...], %arg2 : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  pallas.async_copy %h[ds(%i, 8), :] -> %v[...], %sem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  // CHECK: pallas.dma_wait %arg0[ds(%[[I]], 8), :] -> %arg1[...], %arg2 : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  pallas.dma_wait %h[ds(%i, 8), :] -> %v[...], %sem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  // CHECK: pallas.async_copy %arg1[%[[I]], :] -> %arg0[5, ds(0, 128)], %arg2 {note = "x"} : !pallas.ref<8x128xf32, vmem>, i32 -> !pallas.ref<64x128xf32, any>
  pallas.async_copy %v[%i, :] -> %h[5, ds(0, 128)], %sem {note = "x"} : !pallas.ref<8x128xf32, vmem>, i32 -> !pallas.ref<64x128xf32, any>
  // CHECK: pallas.dma_wait %arg1[0, :] -> %arg0[%[[I]], :], %arg2 : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<64x128xf32, any>, i32
  pallas.dma_wait %v[0, :] -> %h[%i, :], %sem : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<64x128xf32, any>, i32

  // Without results the yield is implicit and not printed.
  // CHECK:      pallas.run_scoped (%[[TMP:.*]]: !pallas.ref<8x128xf32, vmem>, %[[S:.*]]: !pallas.dma_semaphore) {
  // CHECK-NEXT:   pallas.async_copy %arg0[ds(0, 8), :] -> %[[TMP]][...], %[[S]]
  // CHECK-NEXT:   pallas.dma_wait %arg0[ds(0, 8), :] -> %[[TMP]][...], %[[S]]
  // CHECK-NEXT: }
  pallas.run_scoped (%tmp: !pallas.ref<8x128xf32, vmem>, %s: !pallas.dma_semaphore) {
    pallas.async_copy %h[ds(0, 8), :] -> %tmp[...], %s : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %h[ds(0, 8), :] -> %tmp[...], %s : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  }
  // An explicit empty yield is the same op.
  // CHECK:      pallas.run_scoped () {
  // CHECK-NEXT:   pallas.barrier
  // CHECK-NEXT: }
  pallas.run_scoped () {
    pallas.barrier
    pallas.yield
  }
  // With results the yield is printed.
  // CHECK:      %{{.*}}:2 = pallas.run_scoped (%[[ACC:.*]]: !pallas.ref<8xf32, smem>, %{{.*}}: !pallas.semaphore) -> (f32, tensor<8xf32>) {
  // CHECK-NEXT:   %[[X:.*]] = pallas.load %[[ACC]][0] : !pallas.ref<8xf32, smem> -> f32
  // CHECK-NEXT:   %[[Y:.*]] = pallas.load %[[ACC]][...] : !pallas.ref<8xf32, smem> -> tensor<8xf32>
  // CHECK-NEXT:   pallas.yield %[[X]], %[[Y]] : f32, tensor<8xf32>
  // CHECK-NEXT: }
  %x:2 = pallas.run_scoped (%acc: !pallas.ref<8xf32, smem>, %ss: !pallas.semaphore) -> (f32, tensor<8xf32>) {
    %x0 = pallas.load %acc[0] : !pallas.ref<8xf32, smem> -> f32
    %x1 = pallas.load %acc[...] : !pallas.ref<8xf32, smem> -> tensor<8xf32>
    pallas.yield %x0, %x1 : f32, tensor<8xf32>
  }
  pallas.return
}

//===----------------------------------------------------------------------===//
// Tensor construction and reshaping
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @tensors(
pallas.kernel @tensors(%r: !pallas.ref<4x8xf32>) {
  // CHECK: %[[IOTA:.*]] = pallas.iota 1 : tensor<4x8xi32>
  %iota = pallas.iota 1 : tensor<4x8xi32>
  // CHECK: pallas.iota 0 : tensor<16xindex>
  %iotai = pallas.iota 0 : tensor<16xindex>
  // CHECK: pallas.iota 0 : tensor<2xi64>
  %iota64 = pallas.iota 0 : tensor<2xi64>

  %s = arith.constant 1.5 : f32
  %v = pallas.load %r[0, :] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  %c = pallas.load %r[:, 0] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  // CHECK-DAG: %[[S:.*]] = arith.constant 1.500000e+00 : f32
  // CHECK-DAG: %[[V:.*]] = pallas.load %arg0[0, :]
  // CHECK-DAG: %[[C:.*]] = pallas.load %arg0[:, 0]

  // CHECK: pallas.broadcast %[[S]] : f32 -> tensor<4x8xf32>
  %b0 = pallas.broadcast %s : f32 -> tensor<4x8xf32>
  // CHECK: pallas.broadcast %[[V]] : tensor<8xf32> -> tensor<4x8xf32>
  %b1 = pallas.broadcast %v : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: pallas.broadcast %[[C]] dims [0] : tensor<4xf32> -> tensor<4x8xf32>
  %b2 = pallas.broadcast %c dims [0] : tensor<4xf32> -> tensor<4x8xf32>
  // CHECK: %[[B3:.*]] = pallas.broadcast %[[V]] dims [1] : tensor<8xf32> -> tensor<2x8x3xf32>
  %b3 = pallas.broadcast %v dims [1] : tensor<8xf32> -> tensor<2x8x3xf32>
  // CHECK: pallas.broadcast %[[S]] dims [] : f32 -> tensor<2xf32>
  %b4 = pallas.broadcast %s dims [] : f32 -> tensor<2xf32>
  // CHECK: pallas.broadcast %[[B3]] dims [0, 1, 3] : tensor<2x8x3xf32> -> tensor<2x8x5x3xf32>
  %b5 = pallas.broadcast %b3 dims [0, 1, 3] : tensor<2x8x3xf32> -> tensor<2x8x5x3xf32>
  %one = pallas.reshape %v : tensor<8xf32> -> tensor<1x8xf32>
  // CHECK: %[[ONE:.*]] = pallas.reshape %[[V]] : tensor<8xf32> -> tensor<1x8xf32>
  // CHECK: pallas.broadcast %[[ONE]] : tensor<1x8xf32> -> tensor<4x8xf32>
  %b6 = pallas.broadcast %one : tensor<1x8xf32> -> tensor<4x8xf32>

  // CHECK: pallas.reshape %[[IOTA]] : tensor<4x8xi32> -> tensor<2x16xi32>
  %rs = pallas.reshape %iota : tensor<4x8xi32> -> tensor<2x16xi32>
  // CHECK: %[[T:.*]] = pallas.transpose %[[B3]] [2, 0, 1] : tensor<2x8x3xf32> -> tensor<3x2x8xf32>
  %t = pallas.transpose %b3 [2, 0, 1] : tensor<2x8x3xf32> -> tensor<3x2x8xf32>
  // CHECK: pallas.concatenate %[[T]], %[[T]] {dim = 1 : i64} : tensor<3x2x8xf32>, tensor<3x2x8xf32> -> tensor<3x4x8xf32>
  %cc = pallas.concatenate %t, %t {dim = 1 : i64} : tensor<3x2x8xf32>, tensor<3x2x8xf32> -> tensor<3x4x8xf32>
  // CHECK: pallas.concatenate %[[V]] {dim = 0 : i64} : tensor<8xf32> -> tensor<8xf32>
  %c1 = pallas.concatenate %v {dim = 0 : i64} : tensor<8xf32> -> tensor<8xf32>
  // CHECK: pallas.concatenate %[[C]], %[[V]], %[[C]] {dim = 0 : i64} : tensor<4xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<16xf32>
  %c3 = pallas.concatenate %c, %v, %c {dim = 0 : i64} : tensor<4xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<16xf32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @reductions(
pallas.kernel @reductions(%r: !pallas.ref<4x8xf32>, %q: !pallas.ref<4x8xi32>,
                          %p: !pallas.ref<8xi1>) {
  %x = pallas.load %r[...] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %y = pallas.load %q[...] : !pallas.ref<4x8xi32> -> tensor<4x8xi32>
  %z = pallas.load %p[...] : !pallas.ref<8xi1> -> tensor<8xi1>
  // CHECK-DAG: %[[X:.*]] = pallas.load %arg0[...]
  // CHECK-DAG: %[[Y:.*]] = pallas.load %arg1[...]
  // CHECK-DAG: %[[Z:.*]] = pallas.load %arg2[...]

  // CHECK: pallas.reduce sum %[[X]] [1] : tensor<4x8xf32> -> tensor<4xf32>
  %r0 = pallas.reduce sum %x [1] : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: pallas.reduce prod %[[X]] [0] : tensor<4x8xf32> -> tensor<8xf32>
  %r1 = pallas.reduce prod %x [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: pallas.reduce max %[[X]] [0, 1] : tensor<4x8xf32> -> f32
  %r2 = pallas.reduce max %x [0, 1] : tensor<4x8xf32> -> f32
  // CHECK: pallas.reduce min %[[Y]] [1, 0] : tensor<4x8xi32> -> i32
  %r3 = pallas.reduce min %y [1, 0] : tensor<4x8xi32> -> i32
  // CHECK: pallas.reduce and %[[Z]] [0] : tensor<8xi1> -> i1
  %r4 = pallas.reduce and %z [0] : tensor<8xi1> -> i1
  // CHECK: pallas.reduce or %[[Z]] [0] : tensor<8xi1> -> i1
  %r5 = pallas.reduce or %z [0] : tensor<8xi1> -> i1
  // CHECK: pallas.reduce xor %[[Y]] [1] : tensor<4x8xi32> -> tensor<4xi32>
  %r6 = pallas.reduce xor %y [1] : tensor<4x8xi32> -> tensor<4xi32>

  // CHECK: pallas.argmax %[[X]][1] : tensor<4x8xf32> -> tensor<4xi32>
  %am = pallas.argmax %x[1] : tensor<4x8xf32> -> tensor<4xi32>
  // CHECK: pallas.argmin %[[Y]][0] : tensor<4x8xi32> -> tensor<8xi32>
  %an = pallas.argmin %y [0] : tensor<4x8xi32> -> tensor<8xi32>
  // CHECK: pallas.argmax %[[Z]][0] : tensor<8xi1> -> i32
  %am1 = pallas.argmax %z[0] : tensor<8xi1> -> i32

  // CHECK: pallas.cumsum %[[X]][1] : tensor<4x8xf32>
  %cs = pallas.cumsum %x[1] : tensor<4x8xf32>
  // CHECK: pallas.cumsum %[[Y]][0] {reverse} : tensor<4x8xi32>
  %csr = pallas.cumsum %y [0] {reverse} : tensor<4x8xi32>
  pallas.return
}

//===----------------------------------------------------------------------===//
// Matrix multiply
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @dots(
pallas.kernel @dots(%r: !pallas.ref<4x8xf32>) {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x16xf32>
  %acc = arith.constant dense<0.0> : tensor<4x16xf32>
  %ht = arith.constant dense<1.0> : tensor<8x4xf16>
  %bt = arith.constant dense<1.0> : tensor<16x8xbf16>
  %bb = arith.constant dense<1.0> : tensor<8x16xbf16>
  %qa = arith.constant dense<1> : tensor<4x8xi8>
  %qb = arith.constant dense<1> : tensor<8x16xi8>
  %qacc = arith.constant dense<0> : tensor<4x16xi32>
  %ba = arith.constant dense<1.0> : tensor<2x4x8xbf16>
  %bbb = arith.constant dense<1.0> : tensor<2x8x16xbf16>
  %dd = arith.constant dense<1.0> : tensor<4x4xf64>
  // CHECK-DAG: %[[A:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8xf32>
  // CHECK-DAG: %[[B:.*]] = arith.constant dense<1.000000e+00> : tensor<8x16xf32>
  // CHECK-DAG: %[[ACC:.*]] = arith.constant dense<0.000000e+00> : tensor<4x16xf32>
  // CHECK-DAG: %[[HT:.*]] = arith.constant dense<1.000000e+00> : tensor<8x4xf16>
  // CHECK-DAG: %[[BT:.*]] = arith.constant dense<1.000000e+00> : tensor<16x8xbf16>
  // CHECK-DAG: %[[BN:.*]] = arith.constant dense<1.000000e+00> : tensor<8x16xbf16>
  // CHECK-DAG: %[[QA:.*]] = arith.constant dense<1> : tensor<4x8xi8>
  // CHECK-DAG: %[[QB:.*]] = arith.constant dense<1> : tensor<8x16xi8>
  // CHECK-DAG: %[[QACC:.*]] = arith.constant dense<0> : tensor<4x16xi32>
  // CHECK-DAG: %[[BA:.*]] = arith.constant dense<1.000000e+00> : tensor<2x4x8xbf16>
  // CHECK-DAG: %[[BBB:.*]] = arith.constant dense<1.000000e+00> : tensor<2x8x16xbf16>
  // CHECK-DAG: %[[DD:.*]] = arith.constant dense<1.000000e+00> : tensor<4x4xf64>

  // CHECK: %[[D0:.*]] = pallas.dot %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %d0 = pallas.dot %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK: pallas.dot %[[A]], %[[B]] acc %[[ACC]] : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %d1 = pallas.dot %a, %b acc %acc : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  // CHECK: pallas.dot %[[A]], %[[B]] {precision = "default"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %d2 = pallas.dot %a, %b {precision = "default"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK: pallas.dot %[[A]], %[[B]] acc %[[D0]] {precision = "high"} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %d3 = pallas.dot %a, %b acc %d0 {precision = "high"} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  // Low-precision floats accumulate in f32.
  // CHECK: pallas.dot %[[HT]], %[[HT]] {precision = "highest", transpose_lhs} : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
  %d4 = pallas.dot %ht, %ht {transpose_lhs, precision = "highest"} : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
  // CHECK: pallas.dot %[[BN]], %[[BT]] {transpose_lhs, transpose_rhs} : tensor<8x16xbf16>, tensor<16x8xbf16> -> tensor<16x16xf32>
  %d5 = pallas.dot %bb, %bt {transpose_rhs, transpose_lhs} : tensor<8x16xbf16>, tensor<16x8xbf16> -> tensor<16x16xf32>
  // Integers accumulate in i32.
  // CHECK: pallas.dot %[[QA]], %[[QB]] acc %[[QACC]] : tensor<4x8xi8>, tensor<8x16xi8>, tensor<4x16xi32> -> tensor<4x16xi32>
  %d6 = pallas.dot %qa, %qb acc %qacc : tensor<4x8xi8>, tensor<8x16xi8>, tensor<4x16xi32> -> tensor<4x16xi32>
  // A leading batch dimension.
  // CHECK: pallas.dot %[[BA]], %[[BBB]] : tensor<2x4x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x4x16xf32>
  %d7 = pallas.dot %ba, %bbb : tensor<2x4x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x4x16xf32>
  // CHECK: pallas.dot %[[BA]], %[[BA]] {transpose_rhs} : tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x4x4xf32>
  %d8 = pallas.dot %ba, %ba {transpose_rhs} : tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x4x4xf32>
  // f64 stays f64.
  // CHECK: pallas.dot %[[DD]], %[[DD]] acc %[[DD]] : tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  %d9 = pallas.dot %dd, %dd acc %dd : tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  pallas.return
}

//===----------------------------------------------------------------------===//
// Hints, synchronisation, debugging
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @misc(
// CHECK-SAME: %arg0: !pallas.semaphore, %arg1: !pallas.dma_semaphore
pallas.kernel @misc(%sem: !pallas.semaphore, %dsem: !pallas.dma_semaphore) {
  // CHECK: %[[I:.*]] = pallas.program_id 0 : i32
  %i = pallas.program_id 0 : i32
  // CHECK: %[[T:.*]] = pallas.iota 0 : tensor<8xi32>
  %t = pallas.iota 0 : tensor<8xi32>
  // CHECK: %[[IX:.*]] = arith.index_cast
  %ix = arith.index_cast %i : i32 to index
  // CHECK: pallas.multiple_of %[[I]], 8 : i32
  %m0 = pallas.multiple_of %i, 8 : i32
  // CHECK: pallas.multiple_of %[[IX]], 16 : index
  %m1 = pallas.multiple_of %ix, 16 : index
  // CHECK: pallas.max_contiguous %[[T]], 8 : tensor<8xi32>
  %m2 = pallas.max_contiguous %t, 8 : tensor<8xi32>

  // CHECK: pallas.semaphore_signal %arg0, %[[I]] : !pallas.semaphore
  pallas.semaphore_signal %sem, %i : !pallas.semaphore
  // CHECK: pallas.semaphore_wait %arg0, %[[I]] : !pallas.semaphore
  pallas.semaphore_wait %sem, %i : !pallas.semaphore
  // CHECK: pallas.semaphore_signal %arg1, %[[I]] : !pallas.dma_semaphore
  pallas.semaphore_signal %dsem, %i : !pallas.dma_semaphore
  // CHECK: pallas.semaphore_wait %arg1, %[[I]] : !pallas.dma_semaphore
  pallas.semaphore_wait %dsem, %i : !pallas.dma_semaphore
  // CHECK: pallas.semaphore_read %arg0 : !pallas.semaphore
  %v0 = pallas.semaphore_read %sem : !pallas.semaphore
  // CHECK: pallas.semaphore_read %arg1 : !pallas.dma_semaphore
  %v1 = pallas.semaphore_read %dsem : !pallas.dma_semaphore

  // CHECK: pallas.barrier{{$}}
  pallas.barrier
  // CHECK: pallas.debug_print "hello"{{$}}
  pallas.debug_print "hello"
  // CHECK: pallas.debug_print "i = {}, t = {}", %[[I]], %[[T]] : i32, tensor<8xi32>
  pallas.debug_print "i = {}, t = {}", %i, %t : i32, tensor<8xi32>
  // Without placeholders, any number of values.
  // CHECK: pallas.debug_print "values:", %[[I]] : i32
  pallas.debug_print "values:", %i : i32
  pallas.return
}

//===----------------------------------------------------------------------===//
// Blocks of whole arrays
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pallas.kernel @blocks(
pallas.kernel @blocks(%a: !pallas.ref<4096x1000xf32, any>, %s: !pallas.ref<8xi32>) {
  // CHECK: %[[I:.*]] = pallas.program_id 0 : i32
  // CHECK: %[[J:.*]] = pallas.program_id 1 : i32
  %i = pallas.program_id 0 : i32
  %j = pallas.program_id 1 : i32
  // CHECK: pallas.block %arg0[%[[I]], %[[J]]] [1, 1024] squeezed [0] : !pallas.ref<4096x1000xf32, any> -> !pallas.ref<1024xf32, vmem>
  %b0 = pallas.block %a[%i, %j] [1, 1024] squeezed [0] : !pallas.ref<4096x1000xf32, any> -> !pallas.ref<1024xf32, vmem>
  // CHECK: pallas.block %arg0[%[[J]], %[[I]]] [128, 128] : !pallas.ref<4096x1000xf32, any> -> !pallas.ref<128x128xf32, any>
  %b1 = pallas.block %a[%j, %i] [128, 128] : !pallas.ref<4096x1000xf32, any> -> !pallas.ref<128x128xf32, any>
  // CHECK: pallas.block %arg1[%[[I]]] [1] squeezed [0] : !pallas.ref<8xi32> -> !pallas.ref<i32>
  %b2 = pallas.block %s[%i] [1] squeezed [0] : !pallas.ref<8xi32> -> !pallas.ref<i32>
  pallas.return
}
