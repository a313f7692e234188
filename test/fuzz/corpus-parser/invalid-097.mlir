pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<8xf32>
  %d = pallas.dot %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  pallas.return
}
