pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<16x8xf32>
  %d = pallas.dot %a, %b : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  pallas.return
}
