pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<2x4x8xf32>
  %t = pallas.transpose %v [2, 0, 2] : tensor<2x4x8xf32> -> tensor<8x2x8xf32>
  pallas.return
}
