// RUN: pallas-opt %s -pallas-split-programs=max-tile=64 -split-input-file | FileCheck %s

// The M and N dims of a dot's output are cut into 64-wide pieces chosen by
// a new grid axis after the parallel ones; K is left whole; splat
// constants follow the tensors they meet.
// CHECK-LABEL: pallas.kernel @mm
// CHECK-SAME: %{{.*}}: !pallas.ref<64x256xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 256], block = [64, 256], index_map = affine_map<(d0, d1, d2) -> (d0 * 2 + d2 mod 2, 0)>>}
// CHECK-SAME: %{{.*}}: !pallas.ref<256x64xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 256], block = [256, 64], index_map = affine_map<(d0, d1, d2) -> (0, d1 * 2 + (d2 floordiv 2) mod 2)>>}
// CHECK-SAME: %{{.*}}: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 256], block = [64, 64]
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "mm", grid = [2, 2, 4]>
// CHECK: pallas.dot %{{.*}}, %{{.*}} : tensor<64x256xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
// CHECK: arith.constant dense<0.000000e+00> : tensor<64x64xf32>
pallas.kernel @mm(%x: !pallas.ref<128x256xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                  %y: !pallas.ref<256x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 256], block = [256, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                  %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 256], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "mm", grid = [2, 2]>} {
  %a = pallas.load %x[...] : !pallas.ref<128x256xf32> -> tensor<128x256xf32>
  %b = pallas.load %y[...] : !pallas.ref<256x128xf32> -> tensor<256x128xf32>
  %c = pallas.dot %a, %b : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = arith.maximumf %c, %zero : tensor<128x128xf32>
  pallas.store %z[...], %r : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// The new axis goes before the sequential ones, which keep their order;
// program ids past it move by one; scratch shrinks with the output.
// CHECK-LABEL: pallas.kernel @acc
// CHECK-SAME: !pallas.ref<64xf32, vmem> {pallas.block_spec = #pallas.block_spec<scratch>}
// CHECK-SAME: grid = [2, 2, 3], dimension_semantics = [parallel, parallel, arbitrary]>
// CHECK: pallas.program_id 2 : i32
pallas.kernel @acc(%x: !pallas.ref<128x32xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 96], block = [128, 32], index_map = affine_map<(i, k) -> (i, k)>>},
                   %o: !pallas.ref<128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256], block = [128], index_map = affine_map<(i, k) -> (i)>>},
                   %s: !pallas.ref<128xf32, vmem> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "acc", grid = [2, 3], dimension_semantics = [parallel, arbitrary]>} {
  %k = pallas.program_id 1 : i32
  %v = pallas.load %x[...] : !pallas.ref<128x32xf32> -> tensor<128x32xf32>
  %r = pallas.reduce sum %v [1] : tensor<128x32xf32> -> tensor<128xf32>
  %old = pallas.load %s[...] : !pallas.ref<128xf32, vmem> -> tensor<128xf32>
  %new = arith.addf %old, %r : tensor<128xf32>
  pallas.store %s[...], %new : !pallas.ref<128xf32, vmem>, tensor<128xf32>
  pallas.store %o[...], %new : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}

// -----

// A dim that is reduced over, or accessed in part, stays whole.
// CHECK-LABEL: pallas.kernel @rows
// CHECK-SAME: !pallas.ref<1024xf32>
// CHECK-SAME: grid = [8]>
pallas.kernel @rows(%x: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 1024], block = [1, 1024], squeezed = [0], index_map = affine_map<(i) -> (i, 0)>>},
                    %o: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 1024], block = [1, 1024], squeezed = [0], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "rows", grid = [8]>} {
  %v = pallas.load %x[...] : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %m = pallas.reduce max %v [0] : tensor<1024xf32> -> f32
  %mb = pallas.broadcast %m : f32 -> tensor<1024xf32>
  %d = arith.subf %v, %mb : tensor<1024xf32>
  pallas.store %o[...], %d : !pallas.ref<1024xf32>, tensor<1024xf32>
  pallas.return
}

// -----

// An output the kernel never touches (a backward pass's accumulator that it
// only adds into where its caller asks) carries no work: its dims are not
// split, and the grid stays as written, each program doing its loop once.
// CHECK-LABEL: pallas.kernel @untouched
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "untouched", grid = [4]>
// CHECK-NOT: grid = [4, 2]
pallas.kernel @untouched(%x: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [64, 64], index_map = affine_map<(i) -> (i, 0)>>},
                         %o: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 64], block = [64, 64], index_map = affine_map<(i) -> (i, 0)>>},
                         %acc: !pallas.ref<256x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 128], block = [256, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "untouched", grid = [4]>} {
  %v = pallas.load %x[...] : !pallas.ref<64x64xf32> -> tensor<64x64xf32>
  pallas.store %o[...], %v : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}
