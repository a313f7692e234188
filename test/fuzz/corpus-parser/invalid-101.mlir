pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<2x4x8xf32>
  %b = arith.constant dense<1.0> : tensor<3x8x16xf32>
  %d = pallas.dot %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  pallas.return
}
