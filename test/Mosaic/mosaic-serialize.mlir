// RUN: pallas-opt %s --allow-unregistered-dialect -mosaic-serialize | FileCheck %s
// RUN: pallas-opt %s --allow-unregistered-dialect -mosaic-serialize=version=13 | FileCheck %s --check-prefix=V13

// Every op becomes stable_mosaic.<dialect>.<op> with all its attributes in a
// plain dictionary (operandSegmentSizes and defaults included); the module
// gets the version.
// CHECK: module attributes {stable_mosaic.version = 11 : i64} {
// CHECK-NEXT: "stable_mosaic.func.func"() ({
// CHECK: ^bb0(%[[A:.*]]: memref<8x128xf32, #tpu.memory_space<vmem>>, %[[V:.*]]: vector<8x128xf32>):
// CHECK: %[[C:.*]] = "stable_mosaic.arith.constant"() {value = 0 : index} : () -> index
// CHECK: "stable_mosaic.tpu.vector_store"(%[[V]], %[[A]], %[[C]], %[[C]]) {add = false, operandSegmentSizes = array<i32: 1, 1, 2, 0>, strides = array<i32>}
// CHECK: "stable_mosaic.tpu.matmul"(%[[V]], %{{.*}}, %[[V]]) {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs = false, transpose_rhs = false}
// CHECK: "stable_mosaic.func.return"() : () -> ()
// CHECK: }) {function_type = (memref<8x128xf32, #tpu.memory_space<vmem>>, vector<8x128xf32>) -> (), sym_name = "k", tpu.core_type = #tpu.core_type<tc>} : () -> ()
// V13: stable_mosaic.version = 13 : i64
func.func @k(%a: memref<8x128xf32, #tpu.memory_space<vmem>>, %v: vector<8x128xf32>) attributes {tpu.core_type = #tpu.core_type<tc>} {
  %c0 = arith.constant 0 : index
  tpu.vector_store %a[%c0, %c0], %v {strides = array<i32>, add = false} : memref<8x128xf32, #tpu.memory_space<vmem>>, vector<8x128xf32>,
  %t = vector.transpose %v, [1, 0] : vector<8x128xf32> to vector<128x8xf32>
  %m = tpu.matmul %v, %t, %v {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs = false, transpose_rhs = false} : vector<8x128xf32>, vector<128x8xf32>, vector<8x128xf32> -> vector<8x128xf32>
  return
}
