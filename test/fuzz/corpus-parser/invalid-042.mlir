pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %m = arith.constant dense<true> : tensor<4xi1>
  %v = "pallas.load"(%r, %m) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!pallas.ref<4x8xf32>, tensor<4xi1>) -> tensor<8xf32>
  pallas.return
}
