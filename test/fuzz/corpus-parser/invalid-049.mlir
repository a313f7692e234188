pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant dense<0.0> : tensor<8xf32>
  %o = "pallas.swap"(%r, %v) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!pallas.ref<4x8xf32>, tensor<8xf32>) -> tensor<8xf64>
  pallas.return
}
