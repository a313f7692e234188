// pallas-pipeline alone: the loop's load moves one iteration ahead, its
// first block is loaded before the loop, and loads past the end are masked.
// RUN: pallas-opt %S/Inputs/stream_loop.mlir --pallas-pipeline="num-stages=2 num-warps=4" --canonicalize | FileCheck %s
// RUN: pallas-opt %S/Inputs/stream_loop.mlir --pallas-pipeline="num-stages=1" | FileCheck %s --check-prefix=OFF

// CHECK: %[[FIRST:.*]] = tt.load
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %c1_i32
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %c8_i32
// CHECK: %[[MASK:.*]] = tt.splat %[[IN]]
// CHECK: %[[LOADED:.*]] = tt.load %{{.*}}, %[[MASK]]
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[CUR]]
// CHECK: scf.yield %[[SUM]], %[[LOADED]]

// OFF: scf.for
// OFF-SAME: iter_args(%{{[^,]*}}) -> (tensor<128xf32>)
// OFF: tt.load
