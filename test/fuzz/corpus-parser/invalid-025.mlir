pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = arith.constant 0 : i32
  %v = "pallas.load"(%r, %i) <{indexers = array<i64>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!pallas.ref<4x8xf32>, i32) -> tensor<4x8xf32>
  pallas.return
}
