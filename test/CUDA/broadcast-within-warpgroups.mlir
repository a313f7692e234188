// RUN: pallas-opt %s --convert-tile-to-nvvm | FileCheck %s
// RUN: sed 's/num_warps = 8/num_warps = 4/' %s | pallas-opt --convert-tile-to-nvvm | FileCheck %s --check-prefix=ONEGROUP
// RUN: sed 's/num_warps = 8/num_warps = 32/' %s | pallas-opt --convert-tile-to-nvvm | FileCheck %s --check-prefix=ONEGROUP

// A row of 128 values broadcast over 64 rows on two warpgroups (the lse
// and delta rows of attention backward): thread t holds element t % 128,
// so each warpgroup holds the whole row. Each writes its own copy to an
// area of its own after everything else (offset 0 here: the kernel has
// no other shared memory; 512 bytes a warpgroup), between barriers of
// its 128 threads (named barriers 4 and 5), and reads it from there: no
// CTA barrier holds the two warpgroups in step.
// CHECK-LABEL: gpu.func @row_broadcast
// CHECK-SAME: shared_bytes = 1024
// CHECK-NOT: gpu.barrier
// CHECK: %[[GROUP:.*]] = arith.shrui %{{.*}}, %{{.*}} : i32
// CHECK: %[[STRIDE:.*]] = arith.muli %[[GROUP]], %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %[[STRIDE]] : i32
// CHECK: llvm.inline_asm has_side_effects {{.*}}@p bar.sync 4, 128;{{.*}}@p bar.sync 5, 128;
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.inline_asm has_side_effects {{.*}}@p bar.sync 4, 128;{{.*}}@p bar.sync 5, 128;
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// On one warpgroup the exchange is the CTA's, as any other; so on eight
// (1024 threads), whose barriers would need ids past the last, 15.
// ONEGROUP-LABEL: gpu.func @row_broadcast
// ONEGROUP-NOT: bar.sync
// ONEGROUP: gpu.barrier
// ONEGROUP: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// ONEGROUP: gpu.barrier
module {
  tt.func public @row_broadcast(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "row_broadcast", grid = [1], num_warps = 8>} {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %px0 = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %px = tt.addptr %px0, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %v = tt.load %px : tensor<128x!tt.ptr<f32>>
    %e = tt.expand_dims %v {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    %b = tt.broadcast %e : tensor<1x128xf32> -> tensor<64x128xf32>
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %re = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c128 = arith.constant dense<128> : tensor<64x1xi32>
    %rs = arith.muli %re, %c128 : tensor<64x1xi32>
    %rb = tt.broadcast %rs : tensor<64x1xi32> -> tensor<64x128xi32>
    %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
    %i = arith.addi %rb, %cb : tensor<64x128xi32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<64x128x!tt.ptr<f32>>
    %po = tt.addptr %po0, %i : tensor<64x128x!tt.ptr<f32>>, tensor<64x128xi32>
    tt.store %po, %b : tensor<64x128x!tt.ptr<f32>>
    tt.return
  }
}
