pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4xf32>
  %t = pallas.broadcast %v : tensor<4xf32> -> tensor<4x8xf32>
  pallas.return
}
