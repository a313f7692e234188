// RUN: pallas-opt %s -pallas-split-programs="max-tile=128 unbatch-dots=true" -split-input-file | FileCheck %s
// RUN: pallas-opt %s -pallas-split-programs="max-tile=128" -split-input-file | FileCheck %s --check-prefix=KEEP

// A batched dot's batch dim is cut into pieces of one over a new grid
// axis and squeezed away: the dot is 2-D (what tensor cores run); the
// row max over the last dim and the broadcast back follow the dims that
// stay. Without unbatch-dots the kernel is left as written.
// CHECK-LABEL: pallas.kernel @scores
// CHECK-SAME: %{{.*}}: !pallas.ref<64x32xf16> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 64, 32], block = [1, 64, 32], squeezed = [0], index_map = affine_map<(d0, d1) -> (d0 * 4 + d1 mod 4, 0, 0)>>}
// CHECK-SAME: %{{.*}}: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 64, 64], block = [1, 64, 64], squeezed = [0], index_map = affine_map<(d0, d1) -> (d0 * 4 + d1 mod 4, 0, 0)>>}
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "scores", grid = [2, 4]>
// CHECK: pallas.dot %{{.*}}, %{{.*}} {transpose_rhs} : tensor<64x32xf16>, tensor<64x32xf16> -> tensor<64x64xf32>
// CHECK: pallas.reduce max %{{.*}} [1] : tensor<64x64xf32> -> tensor<64xf32>
// CHECK: pallas.broadcast %{{.*}} dims [0] : tensor<64xf32> -> tensor<64x64xf32>
// CHECK: arith.subf %{{.*}}, %{{.*}} : tensor<64x64xf32>
// KEEP-LABEL: pallas.kernel @scores
// KEEP: pallas.dot %{{.*}}, %{{.*}} {transpose_rhs} : tensor<4x64x32xf16>, tensor<4x64x32xf16> -> tensor<4x64x64xf32>
pallas.kernel @scores(%a: !pallas.ref<4x64x32xf16> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 64, 32], block = [4, 64, 32], index_map = affine_map<(i) -> (i, 0, 0)>>},
                      %b: !pallas.ref<4x64x32xf16> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 64, 32], block = [4, 64, 32], index_map = affine_map<(i) -> (i, 0, 0)>>},
                      %o: !pallas.ref<4x64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 64, 64], block = [4, 64, 64], index_map = affine_map<(i) -> (i, 0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "scores", grid = [2]>} {
  %x = pallas.load %a[...] : !pallas.ref<4x64x32xf16> -> tensor<4x64x32xf16>
  %y = pallas.load %b[...] : !pallas.ref<4x64x32xf16> -> tensor<4x64x32xf16>
  %d = pallas.dot %x, %y {transpose_rhs} : tensor<4x64x32xf16>, tensor<4x64x32xf16> -> tensor<4x64x64xf32>
  %m = pallas.reduce max %d [2] : tensor<4x64x64xf32> -> tensor<4x64xf32>
  %mb = pallas.broadcast %m dims [0, 1] : tensor<4x64xf32> -> tensor<4x64x64xf32>
  %s = arith.subf %d, %mb : tensor<4x64x64xf32>
  pallas.store %o[...], %s : !pallas.ref<4x64x64xf32>, tensor<4x64x64xf32>
  pallas.return
}

// -----

// A batch of one is squeezed without a new grid axis.
// CHECK-LABEL: pallas.kernel @one
// CHECK-SAME: %{{.*}}: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [2, 64, 64], block = [1, 64, 64], squeezed = [0], index_map = affine_map<(d0) -> (d0, 0, 0)>>}
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "one", grid = [2]>
// CHECK: pallas.dot %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
pallas.kernel @one(%a: !pallas.ref<1x64x32xf16> {pallas.block_spec = #pallas.block_spec<input, shape = [2, 64, 32], block = [1, 64, 32], index_map = affine_map<(i) -> (i, 0, 0)>>},
                   %b: !pallas.ref<1x32x64xf16> {pallas.block_spec = #pallas.block_spec<input, shape = [2, 32, 64], block = [1, 32, 64], index_map = affine_map<(i) -> (i, 0, 0)>>},
                   %o: !pallas.ref<1x64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [2, 64, 64], block = [1, 64, 64], index_map = affine_map<(i) -> (i, 0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "one", grid = [2]>} {
  %x = pallas.load %a[...] : !pallas.ref<1x64x32xf16> -> tensor<1x64x32xf16>
  %y = pallas.load %b[...] : !pallas.ref<1x32x64xf16> -> tensor<1x32x64xf16>
  %d = pallas.dot %x, %y : tensor<1x64x32xf16>, tensor<1x32x64xf16> -> tensor<1x64x64xf32>
  pallas.store %o[...], %d : !pallas.ref<1x64x64xf32>, tensor<1x64x64xf32>
  pallas.return
}
