pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %t = pallas.broadcast %v dims [0] : tensor<4x8xf32> -> tensor<4x8x2xf32>
  pallas.return
}
