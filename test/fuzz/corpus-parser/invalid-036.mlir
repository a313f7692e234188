pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = arith.constant 0 : index
  %v = "pallas.load"(%r, %i) <{indexers = array<i64: 3, 0, 2, 1, 5, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!pallas.ref<4x8xf32>, index) -> tensor<2x8xf32>
  pallas.return
}
