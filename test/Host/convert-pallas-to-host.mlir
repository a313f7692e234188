// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-host -split-input-file -verify-diagnostics | FileCheck %s

// A grid (parallel, arbitrary): work items walk axis 0, axis 1 runs in
// order inside each; scratch is allocated once per call.
// CHECK-LABEL: func.func @rs_run_range
// CHECK-SAME: (%[[BEGIN:.*]]: i64, %[[END:.*]]: i64, %[[X:.*]]: memref<100x300xf32>, %[[O:.*]]: memref<100xf32>)
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<16xf32>
// CHECK: scf.for %[[ITEM:.*]] = %{{.*}} to %{{.*}} step
// CHECK: arith.remui %[[ITEM]]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// Loads read every element under a bounds check, clamped into the array.
// CHECK: tensor.generate
// CHECK: arith.cmpi ult
// CHECK: arith.minui
// CHECK: memref.load %[[X]]
// CHECK: arith.select
// Stores loop over the value and write only in-bounds elements.
// CHECK: scf.for
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[O]]
// CHECK-NOT: pallas.
pallas.kernel @row_sum(%x: !pallas.ref<16x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [100, 300], block = [16, 128], index_map = affine_map<(i, k) -> (i, k)>>},
                       %o: !pallas.ref<16xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [100], block = [16], index_map = affine_map<(i, k) -> (i)>>},
                       %acc: !pallas.ref<16xf32, vmem> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "rs", grid = [7, 3], dimension_semantics = [parallel, arbitrary]>} {
  %v = pallas.load %x[...] : !pallas.ref<16x128xf32> -> tensor<16x128xf32>
  %s = pallas.reduce sum %v [1] : tensor<16x128xf32> -> tensor<16xf32>
  pallas.store %o[...], %s : !pallas.ref<16xf32>, tensor<16xf32>
  pallas.return
}

// -----

// Dots become a linalg.generic ordered (m, k, n) with f32 accumulation.
// CHECK-LABEL: func.func @mm_run_range
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
pallas.kernel @mm(%a: !pallas.ref<16x8xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [16, 8], block = [16, 8], index_map = affine_map<() -> (0, 0)>>},
                  %z: !pallas.ref<16x16xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [16, 16], block = [16, 16], index_map = affine_map<() -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "mm", grid = []>} {
  %v = pallas.load %a[...] : !pallas.ref<16x8xbf16> -> tensor<16x8xbf16>
  %d = pallas.dot %v, %v {transpose_rhs} : tensor<16x8xbf16>, tensor<16x8xbf16> -> tensor<16x16xf32>
  pallas.store %z[...], %d : !pallas.ref<16x16xf32>, tensor<16x16xf32>
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op must be expanded (pallas-expand-grid) before lowering to the host}}
pallas.kernel @not_annotated(%x: !pallas.ref<8xf32>) {
  pallas.return
}

// -----

// debug_print: printf of a constant format, '%' escaped, the placeholder a
// conversion of the value (floats as doubles).
// CHECK: llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-NEXT: llvm.mlir.global internal constant @__pallas_debug_print_0("x = %g (100%%)\0A\00")
// CHECK-LABEL: func.func @print_run_range
// CHECK: %[[D:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT: %[[F:.*]] = llvm.mlir.addressof @__pallas_debug_print_0
// CHECK-NEXT: llvm.call @printf(%[[F]], %[[D]])
pallas.kernel @print(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<() -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "print", grid = []>} {
  %v = pallas.load %x[0] : !pallas.ref<8xf32> -> f32
  pallas.debug_print "x = {} (100%)", %v : f32
  pallas.return
}
