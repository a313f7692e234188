// RUN: pallas-opt %s --pallas-masked-merges | FileCheck %s

// A merge into a block by select (megablox's group rows): the store
// writes `new` where the rows are the group's, within the array's bounds,
// and the block is not read. The mask is no longer the bounds' alone.
// CHECK-LABEL: tt.func @merge
// CHECK-NOT: tt.load
// CHECK-NOT: arith.select
// CHECK: %[[MASK:.*]] = arith.andi %[[BOUNDS:.*]], %[[MINE:.*]] : tensor<128xi1>
// CHECK: tt.store %[[P:.*]], %[[NEW:.*]], %[[MASK]] : tensor<128x!tt.ptr<f32>>
// CHECK-NOT: tt.bounds_mask
tt.func @merge(%dst: !tt.ptr<f32>, %new: tensor<128xf32>, %lo: i32, %n: i32) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %los = tt.splat %lo : i32 -> tensor<128xi32>
  %ns = tt.splat %n : i32 -> tensor<128xi32>
  %mine = arith.cmpi sge, %r, %los : tensor<128xi32>
  %bounds = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %d = tt.splat %dst : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %p = tt.addptr %d, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %old = tt.load %p, %bounds {tt.bounds_mask} : tensor<128x!tt.ptr<f32>>
  %v = arith.select %mine, %new, %old : tensor<128xi1>, tensor<128xf32>
  tt.store %p, %v, %bounds {tt.bounds_mask} : tensor<128x!tt.ptr<f32>>
  tt.return
}

// The block kept where the condition holds: `new` goes where it does not.
// CHECK-LABEL: tt.func @kept_where_true
// CHECK-NOT: tt.load
// CHECK: %[[TRUE:.*]] = arith.constant dense<true> : tensor<128xi1>
// CHECK: %[[NOT:.*]] = arith.xori %[[C:.*]], %[[TRUE]] : tensor<128xi1>
// CHECK: tt.store %{{.*}}, %{{.*}}, %[[NOT]] : tensor<128x!tt.ptr<f32>>
tt.func @kept_where_true(%dst: !tt.ptr<f32>, %new: tensor<128xf32>, %c: tensor<128xi1>) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %d = tt.splat %dst : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %p = tt.addptr %d, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %old = tt.load %p : tensor<128x!tt.ptr<f32>>
  %v = arith.select %c, %old, %new : tensor<128xi1>, tensor<128xf32>
  tt.store %p, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}

// A store between the load and the merge may have changed the block:
// kept as written. So is a merge of another block's elements.
// CHECK-LABEL: tt.func @written_between
// CHECK: tt.load
// CHECK: arith.select
// CHECK-LABEL: tt.func @other_block
// CHECK: tt.load
// CHECK: arith.select
tt.func @written_between(%dst: !tt.ptr<f32>, %new: tensor<128xf32>, %c: tensor<128xi1>) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %d = tt.splat %dst : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %p = tt.addptr %d, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %old = tt.load %p : tensor<128x!tt.ptr<f32>>
  tt.store %p, %new : tensor<128x!tt.ptr<f32>>
  %v = arith.select %c, %new, %old : tensor<128xi1>, tensor<128xf32>
  tt.store %p, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}
tt.func @other_block(%dst: !tt.ptr<f32>, %src: !tt.ptr<f32>, %new: tensor<128xf32>, %c: tensor<128xi1>) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %d = tt.splat %dst : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %p = tt.addptr %d, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %s = tt.splat %src : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %q = tt.addptr %s, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %old = tt.load %q : tensor<128x!tt.ptr<f32>>
  %v = arith.select %c, %new, %old : tensor<128xi1>, tensor<128xf32>
  tt.store %p, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}
