pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<2x4xf32>
  %t = pallas.broadcast %v : tensor<2x4xf32> -> tensor<8xf32>
  pallas.return
}
