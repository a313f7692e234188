// RUN: pallas-opt %s -split-input-file --pallas-assign-layouts=wgmma=true | FileCheck %s

// pallas-assign-layouts=wgmma=true on dots with fewer m64 blocks than the
// CTA has warpgroups (a 64-row tile on eight warps: attention backward's
// 64 query rows against 128 keys): the warpgroups split the columns, each
// computing N / 2 of them on wgmma, instead of the dot falling back to
// mma.sync. A row reduction of such a tile is a slice of it, as of any
// tensor-core layout.
// CHECK-LABEL: tt.func @split_columns
// CHECK: tt.dot {{.*}} -> tensor<64x128xf32, #pallas_gpu.wgmma<warps = 8, column_groups = 2>>
// CHECK: "tt.reduce"({{.*}}) <{axis = 1 : i32}>
// CHECK: tensor<64x128xf32, #pallas_gpu.wgmma<warps = 8, column_groups = 2>>) -> tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8, column_groups = 2>>>
// 256 columns: two groups of 128.
// CHECK: tt.dot {{.*}} -> tensor<64x256xf32, #pallas_gpu.wgmma<warps = 8, column_groups = 2>>
// A 128-row tile on eight warps keeps the row split.
// CHECK: tt.dot {{.*}} -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
tt.func @split_columns(%a: tensor<64x64xbf16>, %b: tensor<64x128xbf16>, %b2: tensor<64x256xbf16>,
                       %a2: tensor<128x64xbf16>) -> (tensor<64xf32>, tensor<64x256xf32>, tensor<128x128xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "split_columns", grid = [1], num_warps = 8>} {
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %d = tt.dot %a, %b, %zero : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
  %m = "tt.reduce"(%d) <{axis = 1 : i32}> ({
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %y : f32
    tt.reduce.return %r : f32
  }) : (tensor<64x128xf32>) -> tensor<64xf32>
  %zero2 = arith.constant dense<0.0> : tensor<64x256xf32>
  %d2 = tt.dot %a, %b2, %zero2 : tensor<64x64xbf16> * tensor<64x256xbf16> -> tensor<64x256xf32>
  %zero3 = arith.constant dense<0.0> : tensor<128x128xf32>
  %d3 = tt.dot %a2, %b, %zero3 : tensor<128x64xbf16> * tensor<64x128xbf16> -> tensor<128x128xf32>
  tt.return %m, %d2, %d3 : tensor<64xf32>, tensor<64x256xf32>, tensor<128x128xf32>
}

// -----

// 64 x 64 on eight warps: 32 columns a warpgroup, half a 128-byte swizzle
// atom of B (a descriptor starts inside the atom's rows there).
// CHECK-LABEL: tt.func @half_atoms
// CHECK: tt.dot {{.*}} -> tensor<64x64xf32, #pallas_gpu.wgmma<warps = 8, column_groups = 2>>
tt.func @half_atoms(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "half_atoms", grid = [1], num_warps = 8>} {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tt.dot %a, %b, %zero : tensor<64x128xbf16> * tensor<128x64xbf16> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}

// -----

// Columns that split neither into whole 128-byte columns of B nor into
// halves of one stay on mma.sync: 96 a warpgroup (64 x 192 on eight
// warps), 16 a warpgroup (64 x 64 on sixteen).
// CHECK-LABEL: tt.func @narrow
// CHECK: tt.dot {{.*}} -> tensor<64x192xf32, #pallas_gpu.mma<
tt.func @narrow(%a: tensor<64x64xbf16>, %b: tensor<64x192xbf16>) -> tensor<64x192xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "narrow", grid = [1], num_warps = 8>} {
  %zero = arith.constant dense<0.0> : tensor<64x192xf32>
  %d = tt.dot %a, %b, %zero : tensor<64x64xbf16> * tensor<64x192xbf16> -> tensor<64x192xf32>
  tt.return %d : tensor<64x192xf32>
}

// -----

// CHECK-LABEL: tt.func @sixteen_warps
// CHECK: tt.dot {{.*}} -> tensor<64x64xf32, #pallas_gpu.mma<
tt.func @sixteen_warps(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "sixteen_warps", grid = [1], num_warps = 16>} {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tt.dot %a, %b, %zero : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}
