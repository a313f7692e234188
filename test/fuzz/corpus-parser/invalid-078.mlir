pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %t = pallas.transpose %v [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  pallas.return
}
