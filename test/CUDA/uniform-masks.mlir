// pallas-uniform-masks: in a loop, a tensor select on a compare of iotas,
// splats and constants (causal attention's mask) runs under an scf.if on
// one scalar compare of the tiles' bounds, so tiles the mask keeps whole
// skip it. Pinned here: that compare for >= and <, and the selects left
// alone.
// RUN: pallas-opt %s --pallas-uniform-masks --canonicalize | FileCheck %s

// Causal attention's mask: q_index = iota_rows + q0 >= k_index = iota_cols
// + 64 j holds for the whole 64x64 tile when q0 + 0 - (64 j + 63) >= 0.
// The select moves under an scf.if on that scalar compare; the tiles that
// keep everything take the scores as they are.
// CHECK-LABEL: tt.func @causal
// CHECK: scf.for %[[J:[^ ]*]] =
// CHECK: %[[OFF:.*]] = arith.muli %[[J]], %c64_i32
// CHECK: %[[Q:.*]] = arith.extsi %[[Q0:[^ ]*]] : i32 to i64
// CHECK: %[[LO:.*]] = arith.addi %[[Q]], %c-63_i64
// CHECK: %[[K:.*]] = arith.extsi %[[OFF]] : i32 to i64
// CHECK: %[[D:.*]] = arith.subi %[[LO]], %[[K]]
// CHECK: %[[WHOLE:.*]] = arith.cmpi sge, %[[D]], %c0_i64
// CHECK: %[[S:.*]] = scf.if %[[WHOLE]] -> (tensor<64x64xf32>) {
// CHECK-NEXT: scf.yield %[[SCORES:[^ ]*]] :
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[KEEP:.*]] = arith.cmpi sge,
// CHECK-NEXT: %[[MASKED:.*]] = arith.select %[[KEEP]], %[[SCORES]], %{{.*}}
// CHECK-NEXT: scf.yield %[[MASKED]]
// CHECK: arith.addf %{{.*}}, %[[S]]
tt.func @causal(%q0: i32, %scores: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<-1.0e+30> : tensor<64x64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r1 = tt.expand_dims %range {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rows = tt.broadcast %r1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %c1d = tt.expand_dims %range {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cols = tt.broadcast %c1d : tensor<1x64xi32> -> tensor<64x64xi32>
  %qs = tt.splat %q0 : i32 -> tensor<64x64xi32>
  %qidx = arith.addi %rows, %qs : tensor<64x64xi32>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %scores) -> (tensor<64x64xf32>) : i32 {
    %off = arith.muli %j, %c64 : i32
    %ks = tt.splat %off : i32 -> tensor<64x64xi32>
    %kidx = arith.addi %cols, %ks : tensor<64x64xi32>
    %keep = arith.cmpi sge, %qidx, %kidx : tensor<64x64xi32>
    %s = arith.select %keep, %scores, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %sum = arith.addf %acc, %s : tensor<64x64xf32>
    scf.yield %sum : tensor<64x64xf32>
  }
  tt.return %r : tensor<64x64xf32>
}

// `<` compares the largest left element with the smallest right one:
// q0 + 63 - (64 j + 0) < 0.
// CHECK-LABEL: tt.func @strictly_below
// CHECK: arith.addi %{{.*}}, %c63_i64
// CHECK: arith.cmpi slt, %{{.*}}, %c0_i64
// CHECK: scf.if
tt.func @strictly_below(%q0: i32, %scores: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<-1.0e+30> : tensor<64x64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r1 = tt.expand_dims %range {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rows = tt.broadcast %r1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %qs = tt.splat %q0 : i32 -> tensor<64x64xi32>
  %qidx = arith.addi %rows, %qs : tensor<64x64xi32>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %scores) -> (tensor<64x64xf32>) : i32 {
    %off = arith.muli %j, %c64 : i32
    %ks = tt.splat %off : i32 -> tensor<64x64xi32>
    %keep = arith.cmpi slt, %qidx, %ks : tensor<64x64xi32>
    %s = arith.select %keep, %scores, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tt.return %r : tensor<64x64xf32>
}

// Left alone: a compare the loop does not change (hoisted elsewhere), an
// unsigned one, one of tiles that are not built from iotas and splats,
// and a select outside any loop.
// CHECK-LABEL: tt.func @left_alone
// CHECK-NOT: scf.if
// CHECK: tt.return
tt.func @left_alone(%q0: i32, %data: tensor<64x64xi32>, %scores: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %ninf = arith.constant dense<-1.0e+30> : tensor<64x64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r1 = tt.expand_dims %range {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rows = tt.broadcast %r1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %qs = tt.splat %q0 : i32 -> tensor<64x64xi32>
  %inv = arith.cmpi sge, %rows, %qs : tensor<64x64xi32>
  %outside = arith.select %inv, %scores, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %outside) -> (tensor<64x64xf32>) : i32 {
    %js = tt.splat %j : i32 -> tensor<64x64xi32>
    %invariant = arith.select %inv, %acc, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %u = arith.cmpi uge, %rows, %js : tensor<64x64xi32>
    %s1 = arith.select %u, %invariant, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %d = arith.cmpi sge, %data, %js : tensor<64x64xi32>
    %s2 = arith.select %d, %s1, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    scf.yield %s2 : tensor<64x64xf32>
  }
  tt.return %r : tensor<64x64xf32>
}
