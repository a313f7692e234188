pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x4xf32>
  %t = pallas.broadcast %v dims [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  pallas.return
}
