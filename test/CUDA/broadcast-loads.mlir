// RUN: pallas-opt %s --pallas-broadcast-loads | FileCheck %s

// layer_norm backward's dw/db: each row's mean, loaded per iteration and
// broadcast over a 16 x 16 tile (256 threads: one element each), is
// loaded as the tile; its pointers are built in 2-D from the splats and
// the broadcast row indices.
// CHECK-LABEL: tt.func @row_mean
// CHECK: scf.for
// CHECK: %[[B:.*]] = tt.splat %arg0 : !tt.ptr<bf16> -> tensor<16x16x!tt.ptr<bf16>>
// CHECK: %[[S:.*]] = tt.splat %{{.*}} : i32 -> tensor<16x16xi32>
// CHECK: %[[E:.*]] = tt.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: %[[R:.*]] = tt.broadcast %[[E]] : tensor<16x1xi32> -> tensor<16x16xi32>
// CHECK: %[[O:.*]] = arith.addi %[[S]], %[[R]] : tensor<16x16xi32>
// CHECK: %[[P:.*]] = tt.addptr %[[B]], %[[O]] : tensor<16x16x!tt.ptr<bf16>>, tensor<16x16xi32>
// CHECK: %[[L:.*]] = tt.load %[[P]] : tensor<16x16x!tt.ptr<bf16>>
// CHECK: arith.extf %[[L]] : tensor<16x16xbf16> to tensor<16x16xf32>
// CHECK-NOT: tt.load
tt.func @row_mean(%mean: !tt.ptr<bf16>, %x: tensor<16x16xf32>) -> tensor<16x16xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c512 = arith.constant 512 : i32
  %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %base = tt.splat %mean : !tt.ptr<bf16> -> tensor<16x!tt.ptr<bf16>>
  %r = scf.for %i = %c0 to %c512 step %c1 iter_args(%acc = %x) -> (tensor<16x16xf32>) : i32 {
    %first = arith.muli %i, %c16 : i32
    %s = tt.splat %first : i32 -> tensor<16xi32>
    %idx = arith.addi %s, %rows : tensor<16xi32>
    %p = tt.addptr %base, %idx : tensor<16x!tt.ptr<bf16>>, tensor<16xi32>
    %m = tt.load %p : tensor<16x!tt.ptr<bf16>>
    %f = arith.extf %m : tensor<16xbf16> to tensor<16xf32>
    %e = tt.expand_dims %f {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %b = tt.broadcast %e : tensor<16x1xf32> -> tensor<16x16xf32>
    %n = arith.addf %acc, %b : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tt.return %r : tensor<16x16xf32>
}

// Left alone: a tile of more than 8 elements per thread (attention's
// row statistics over 64 x 64 on 128 threads), and a load outside a loop.
// CHECK-LABEL: tt.func @left_alone
// CHECK: tt.load %{{.*}} : tensor<64x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}} : tensor<16x!tt.ptr<f32>>
tt.func @left_alone(%lse: !tt.ptr<f32>, %x: tensor<64x64xf32>, %y: tensor<16x16xf32>)
    -> (tensor<64x64xf32>, tensor<16x16xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %base = tt.splat %lse : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<64x64xf32>) : i32 {
    %p = tt.addptr %base, %rows : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %m = tt.load %p : tensor<64x!tt.ptr<f32>>
    %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
    %n = arith.addf %acc, %b : tensor<64x64xf32>
    scf.yield %n : tensor<64x64xf32>
  }
  %r16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %b16 = tt.splat %lse : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %p16 = tt.addptr %b16, %r16 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %m16 = tt.load %p16 : tensor<16x!tt.ptr<f32>>
  %e16 = tt.expand_dims %m16 {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %bb = tt.broadcast %e16 : tensor<16x1xf32> -> tensor<16x16xf32>
  %y2 = arith.addf %y, %bb : tensor<16x16xf32>
  tt.return %r, %y2 : tensor<64x64xf32>, tensor<16x16xf32>
}
