// RUN: pallas-opt %s -pallas-expand-grid -split-input-file | FileCheck %s

// Block refs become whole arrays viewed at index_map(program ids) x block;
// num_programs folds to the grid size.
// CHECK-LABEL: pallas.kernel @blocks
// CHECK-SAME: (%[[X:.*]]: !pallas.ref<1024x1024xf32> {{.*}}, %[[Z:.*]]: !pallas.ref<100x70xf32>
// CHECK-SAME: expanded>
// CHECK: %[[I:.*]] = pallas.program_id 0 : i32
// CHECK: %[[J:.*]] = pallas.program_id 1 : i32
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[XB:.*]] = pallas.block %[[X]][%[[I]], %[[C0]]] [512, 1024] : !pallas.ref<1024x1024xf32> -> !pallas.ref<512x1024xf32>
// CHECK: %[[ZB:.*]] = pallas.block %[[Z]][%[[J]], %[[I]]] [32, 32] : !pallas.ref<100x70xf32> -> !pallas.ref<32x32xf32>
// CHECK: pallas.load %[[XB]][...]
// CHECK: %[[N:.*]] = arith.constant 3 : i32
// CHECK: arith.addi %[[N]]
pallas.kernel @blocks(%x: !pallas.ref<512x1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 1024], block = [512, 1024], index_map = affine_map<(i, j) -> (i, 0)>>},
                      %z: !pallas.ref<32x32xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [100, 70], block = [32, 32], index_map = affine_map<(i, j) -> (j, i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "blocks", grid = [2, 3]>} {
  %v = pallas.load %x[...] : !pallas.ref<512x1024xf32> -> tensor<512x1024xf32>
  %n = pallas.num_programs 1 : i32
  %m = arith.addi %n, %n : i32
  pallas.return
}

// -----

// Squeezed dims (`squeezed` in the block spec) are dropped from the view; index maps
// with floordiv/mod become arith.
// CHECK-LABEL: pallas.kernel @squeezed
// CHECK: %[[I:.*]] = pallas.program_id 0 : i32
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[D:.*]] = arith.floordivsi %[[I]], %[[C2]] : i32
// CHECK: arith.remsi
// CHECK: pallas.block %{{.*}}[%[[D]], %{{.*}}] [1, 1024] squeezed [0] : !pallas.ref<4096x1000xf32> -> !pallas.ref<1024xf32>
pallas.kernel @squeezed(%x: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 1000], block = [1, 1024], squeezed = [0], index_map = affine_map<(i) -> (i floordiv 2, i mod 2)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "squeezed", grid = [8]>} {
  pallas.return
}

// -----

// Under vmap (batch_axes = 1) kernel program ids move one axis on.
// CHECK-LABEL: pallas.kernel @batched
// CHECK: %[[B:.*]] = pallas.program_id 0 : i32
// CHECK: %[[I:.*]] = pallas.program_id 1 : i32
// CHECK: pallas.block %{{.*}}[%[[B]], %[[I]]] [1, 8] squeezed [0]
// CHECK: %[[K:.*]] = pallas.program_id 1 : i32
// CHECK: arith.sitofp %[[K]]
pallas.kernel @batched(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [5, 20], block = [1, 8], squeezed = [0], index_map = affine_map<(b, i) -> (b, i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "batched", grid = [5, 3], batch_axes = 1>} {
  %i = pallas.program_id 0 : i32
  %f = arith.sitofp %i : i32 to f32
  pallas.return
}

// -----

// "@fn" index maps are inlined with the grid indices and the scalar-prefetch
// refs; scratch and prefetch refs are left whole.
// CHECK-LABEL: pallas.kernel @prefetch
// CHECK-SAME: (%[[ROWS:.*]]: !pallas.ref<4xi32, smem> {{.*}}, %[[X:.*]]: !pallas.ref<16x128xf32>
// CHECK: %[[I:.*]] = pallas.program_id 0 : i32
// CHECK: %[[R:.*]] = pallas.load %[[ROWS]][%[[I]]] : !pallas.ref<4xi32, smem>, i32 -> i32
// CHECK: pallas.block %[[X]][%[[R]], %{{.*}}] [1, 128] squeezed [0]
// CHECK-NOT: pallas.block %[[ROWS]]
func.func @row_of(%i: i32, %rows: !pallas.ref<4xi32, smem>) -> (i32, i32) {
  %r = pallas.load %rows[%i] : !pallas.ref<4xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %r, %c0 : i32, i32
}
pallas.kernel @prefetch(%rows: !pallas.ref<4xi32, smem> {pallas.block_spec = #pallas.block_spec<prefetch, shape = [], block = []>},
                        %x: !pallas.ref<128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [16, 128], block = [1, 128], squeezed = [0], index_fn = @row_of>},
                        %acc: !pallas.ref<128xf32, vmem> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "prefetch", grid = [4]>} {
  pallas.return
}

// -----

// Kernels without launch attributes are left alone.
// CHECK-LABEL: pallas.kernel @plain
// CHECK-NOT: pallas.block
pallas.kernel @plain(%x: !pallas.ref<8xf32>) {
  pallas.return
}
