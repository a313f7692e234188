// pallas-stage-loads alone: the loop's load moves one iteration ahead, its
// first block is loaded before the loop, and the last iteration reloads the
// last block (index min(k + 1, ub - 1)) instead of reading past the end.
// RUN: pallas-opt %S/Inputs/stream_loop.mlir --pallas-stage-loads --canonicalize | FileCheck %s
// RUN: sed 's/num_stages = 2/num_stages = 1/' %S/Inputs/stream_loop.mlir | pallas-opt --pallas-stage-loads | FileCheck %s --check-prefix=OFF

// CHECK: %[[FIRST:.*]] = tt.load
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// CHECK: %[[INC:.*]] = arith.addi %[[K]], %c1_i32
// CHECK: %[[NEXT:.*]] = arith.minsi %[[INC]], %c7_i32
// CHECK: arith.muli %[[NEXT]], %c128_i32
// CHECK: %[[LOADED:.*]] = tt.load
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[CUR]]
// CHECK: scf.yield %[[SUM]], %[[LOADED]]

// OFF: scf.for
// OFF-SAME: iter_args(%{{[^,]*}}) -> (tensor<128xf32>)
// OFF: tt.load

// A loop that also stores is left alone: a later iteration may read what
// this one writes.
// RUN: pallas-opt %S/Inputs/stream_loop_writes.mlir --pallas-stage-loads | FileCheck %s --check-prefix=WRITES
// WRITES: scf.for
// WRITES-SAME: iter_args(%{{[^,]*}}) -> (tensor<128xf32>)
// WRITES: tt.load
// WRITES: tt.store

// A loop that may run no trip (program 0's upper bound is 0): the block
// loaded before it is masked by lb < ub, so that no address past the
// iteration space is read; a loop that surely runs keeps its load plain.
// RUN: pallas-opt %S/Inputs/stream_loop_maybe_empty.mlir --pallas-stage-loads | FileCheck %s --check-prefix=EMPTY
// EMPTY: %[[N:.*]] = tt.get_program_id x : i32
// EMPTY: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %[[N]] : i32
// EMPTY: %[[ALL:.*]] = tt.splat %[[RUNS]] : i1 -> tensor<128xi1>
// EMPTY: %[[FIRST:.*]] = tt.load %{{.*}}, %[[ALL]] : tensor<128x!tt.ptr<f32>>
// EMPTY: scf.for %{{.*}} = %c0_i32 to %[[N]] {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[FIRST]])
// CHECK-NOT: tt.splat %{{.*}} : i1
