pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %o = arith.constant dense<0.0> : tensor<8xf32>
  %v = "pallas.load"(%r, %o) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (!pallas.ref<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  pallas.return
}
