// RUN: pallas-opt %s --pallas-fold-true-masks | FileCheck %s

// Rows pid * 128 + r of a 1024-row array, pid below 8 programs: every
// element is in bounds, the mask (and the load's `other`) goes.
// CHECK-LABEL: tt.func @in_bounds
// CHECK: tt.load %{{.*}} : tensor<128x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<128x!tt.ptr<f32>>
tt.func @in_bounds(%src: !tt.ptr<f32>, %dst: !tt.ptr<f32>) {
  %pid = tt.get_program_id x {tt.num_programs = 8 : i64} : i32
  %c128 = arith.constant 128 : i32
  %base = arith.muli %pid, %c128 : i32
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %b = tt.splat %base : i32 -> tensor<128xi32>
  %rows = arith.addi %b, %r : tensor<128xi32>
  %n = arith.constant dense<1024> : tensor<128xi32>
  %keep = arith.cmpi slt, %rows, %n : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = tt.splat %src : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %p = tt.addptr %s, %rows : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %x = tt.load %p, %keep, %zero : tensor<128x!tt.ptr<f32>>
  %d = tt.splat %dst : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %q = tt.addptr %d, %rows : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %q, %x, %keep : tensor<128x!tt.ptr<f32>>
  tt.return
}

// 9 programs of 128 rows overrun 1024 rows: the mask stays. So does it
// without a known program count.
// CHECK-LABEL: tt.func @edge_block
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tt.ptr<f32>>
tt.func @edge_block(%src: !tt.ptr<f32>) -> (tensor<128xf32>, tensor<128xf32>) {
  %pid = tt.get_program_id x {tt.num_programs = 9 : i64} : i32
  %any = tt.get_program_id y : i32
  %c128 = arith.constant 128 : i32
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %n = arith.constant dense<1024> : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = tt.splat %src : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %base = arith.muli %pid, %c128 : i32
  %b = tt.splat %base : i32 -> tensor<128xi32>
  %rows = arith.addi %b, %r : tensor<128xi32>
  %keep = arith.cmpi slt, %rows, %n : tensor<128xi32>
  %p = tt.addptr %s, %rows : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %x = tt.load %p, %keep, %zero : tensor<128x!tt.ptr<f32>>
  %base2 = arith.muli %any, %c128 : i32
  %b2 = tt.splat %base2 : i32 -> tensor<128xi32>
  %rows2 = arith.addi %b2, %r : tensor<128xi32>
  %keep2 = arith.cmpi slt, %rows2, %n : tensor<128xi32>
  %p2 = tt.addptr %s, %rows2 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %y = tt.load %p2, %keep2, %zero : tensor<128x!tt.ptr<f32>>
  tt.return %x, %y : tensor<128xf32>, tensor<128xf32>
}

// A loop over 128-row blocks 0 .. 7 of 1024 rows (attention's K and V):
// the induction variable's range keeps every block in bounds; one row
// further (the loop running to 9 blocks) it does not.
// CHECK-LABEL: tt.func @loop
// CHECK: scf.for
// CHECK: tt.load %{{.*}} : tensor<128x!tt.ptr<f32>>
// CHECK: scf.for
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tt.ptr<f32>>
tt.func @loop(%src: !tt.ptr<f32>) -> (tensor<128xf32>, tensor<128xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c9 = arith.constant 9 : i32
  %c128 = arith.constant 128 : i32
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %n = arith.constant dense<1024> : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = tt.splat %src : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %x = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) : i32 {
    %base = arith.muli %i, %c128 : i32
    %b = tt.splat %base : i32 -> tensor<128xi32>
    %rows = arith.addi %b, %r : tensor<128xi32>
    %keep = arith.cmpi slt, %rows, %n : tensor<128xi32>
    %p = tt.addptr %s, %rows : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %v = tt.load %p, %keep, %zero : tensor<128x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<128xf32>
    scf.yield %a : tensor<128xf32>
  }
  %y = scf.for %i = %c0 to %c9 step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) : i32 {
    %base = arith.muli %i, %c128 : i32
    %b = tt.splat %base : i32 -> tensor<128xi32>
    %rows = arith.addi %b, %r : tensor<128xi32>
    %keep = arith.cmpi slt, %rows, %n : tensor<128xi32>
    %p = tt.addptr %s, %rows : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %v = tt.load %p, %keep, %zero : tensor<128x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<128xf32>
    scf.yield %a : tensor<128xf32>
  }
  tt.return %x, %y : tensor<128xf32>, tensor<128xf32>
}
