pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %t = pallas.reshape %v : tensor<4x8xf32> -> tensor<5x6xf32>
  pallas.return
}
