pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant dense<0.0> : tensor<8xf32>
  %m = arith.constant dense<true> : tensor<4xi1>
  "pallas.store"(%r, %v, %m) <{indexers = array<i64: 1, 0, 0, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (!pallas.ref<4x8xf32>, tensor<8xf32>, tensor<4xi1>) -> ()
  pallas.return
}
