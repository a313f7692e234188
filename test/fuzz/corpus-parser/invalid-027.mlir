pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = "pallas.load"(%r) <{indexers = array<i64: 5, 0, 0, 1, 6, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (!pallas.ref<4x8xf32>) -> tensor<4x8xf32>
  pallas.return
}
