// convert-pallas-to-tile's triton-dot-limits (on by default): dots below
// Triton's minimum dot size are refused for Triton; the CUDA targets, which
// lower the tile IR themselves, turn the option off and get the dot.
// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-tile=triton-dot-limits=false | FileCheck %s
// RUN: not pallas-opt %s -pallas-expand-grid -convert-pallas-to-tile 2>&1 | FileCheck %s --check-prefix=TRITON

// CHECK-LABEL: tt.func public @small_dot(
// CHECK: %[[A:.*]] = tt.load %{{.*}} : tensor<8x8x!tt.ptr<f32>>
// CHECK: %[[D:.*]] = tt.dot %[[A]], %[[A]], %{{.*}} : tensor<8x8xf32> * tensor<8x8xf32> -> tensor<8x8xf32>
// CHECK: tt.store %{{.*}}, %[[D]]
// TRITON: error: 'pallas.dot' op the triton target needs dot operands of at least 16x16, got 'tensor<8x8xf32>'
pallas.kernel @small_dot(%a: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 8], block = [8, 8], index_map = affine_map<(i) -> (0, 0)>>},
                         %o: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 8], block = [8, 8], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "small_dot", grid = [1]>} {
  %x = pallas.load %a[...] : !pallas.ref<8x8xf32> -> tensor<8x8xf32>
  %d = pallas.dot %x, %x : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  pallas.store %o[...], %d : !pallas.ref<8x8xf32>, tensor<8x8xf32>
  pallas.return
}
