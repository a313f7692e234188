// pallas-heavy-programs-first: when a loop's upper bound grows with the
// program id of an axis (the id through casts, additions of constants and
// multiplications by positive ones) and its lower bound does not, every
// tt.get_program_id of that axis becomes (programs - 1) - id, so the
// longest programs start first. Axes of one program, folded grids, bounds
// that do not grow with the id and functions without a launch stay.
// RUN: pallas-opt %s --pallas-heavy-programs-first | FileCheck %s

// Causal attention: query block i (8 along x) walks key blocks 0 .. i.
// Every read of id x is counted down; y stays.
// CHECK-LABEL: tt.func public @causal
// CHECK: %[[X:.*]] = tt.get_program_id x
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[REV:.*]] = arith.subi %[[LAST]], %[[X]] : i32
// CHECK-NEXT: %[[Y:.*]] = tt.get_program_id y
// CHECK-NOT: arith.subi %{{.*}}, %[[Y]]
// CHECK-NEXT: %[[UB:.*]] = arith.addi %[[REV]], %{{.*}} : i32
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[UB]]
// CHECK: arith.muli %[[REV]], %[[Y]]
// CHECK-NOT: tt.get_program_id
// CHECK: tt.return
tt.func public @causal() attributes {pallas.launch = #pallas.launch<symbol = "causal", grid = [8, 4], expanded>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = tt.get_program_id x : i32
  %h = tt.get_program_id y : i32
  %ub = arith.addi %i, %c1 : i32
  scf.for %j = %c0 to %ub step %c1 : i32 {
    %k = arith.muli %i, %h : i32
  }
  tt.return
}

// Through an index cast and a multiplication by a positive constant, along
// y (3 programs); x (one program) stays.
// CHECK-LABEL: tt.func public @scaled
// CHECK: %[[X:.*]] = tt.get_program_id x
// CHECK-NEXT: %[[Y:.*]] = tt.get_program_id y
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[REV:.*]] = arith.subi %[[LAST]], %[[Y]] : i32
// CHECK-NEXT: %[[W:.*]] = arith.index_cast %[[REV]] : i32 to index
// CHECK-NEXT: arith.muli %[[W]], %{{.*}} : index
// CHECK-NOT: arith.subi
// CHECK: tt.return
tt.func public @scaled() attributes {pallas.launch = #pallas.launch<symbol = "scaled", grid = [1, 3], expanded>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = tt.get_program_id x : i32
  %y = tt.get_program_id y : i32
  %w = arith.index_cast %y : i32 to index
  %ub = arith.muli %w, %c64 : index
  %xw = arith.index_cast %x : i32 to index
  %ub2 = arith.addi %xw, %c1 : index
  scf.for %j = %c0 to %ub step %c1 {
    scf.for %k = %c0 to %ub2 step %c1 {
    }
  }
  tt.return
}

// Left alone: a window that moves with the id (lower bound too), a bound
// that shrinks with it (times -1), a grid folded into x (four axes), a
// function without a launch.
// CHECK-LABEL: tt.func public @window
// CHECK-NOT: arith.subi
// CHECK: tt.return
// CHECK-LABEL: tt.func public @shrinking
// CHECK-NOT: arith.subi
// CHECK: tt.return
// CHECK-LABEL: tt.func public @folded
// CHECK-NOT: arith.subi
// CHECK: tt.return
// CHECK-LABEL: tt.func public @no_launch
// CHECK-NOT: arith.subi
// CHECK: tt.return
tt.func public @window() attributes {pallas.launch = #pallas.launch<symbol = "window", grid = [8], expanded>} {
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %i = tt.get_program_id x : i32
  %ub = arith.addi %i, %c4 : i32
  scf.for %j = %i to %ub step %c1 : i32 {
  }
  tt.return
}
tt.func public @shrinking() attributes {pallas.launch = #pallas.launch<symbol = "shrinking", grid = [8], expanded>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.constant -1 : i32
  %i = tt.get_program_id x : i32
  %ub = arith.muli %i, %m1 : i32
  scf.for %j = %c0 to %ub step %c1 : i32 {
  }
  tt.return
}
tt.func public @folded() attributes {pallas.launch = #pallas.launch<symbol = "folded", grid = [2, 2, 2, 2], expanded>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = tt.get_program_id x : i32
  %ub = arith.addi %i, %c1 : i32
  scf.for %j = %c0 to %ub step %c1 : i32 {
  }
  tt.return
}
tt.func public @no_launch() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i = tt.get_program_id x : i32
  %ub = arith.addi %i, %c1 : i32
  scf.for %j = %c0 to %ub step %c1 : i32 {
  }
  tt.return
}
