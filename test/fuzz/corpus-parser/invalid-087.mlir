pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %r = pallas.reduce min %v [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  pallas.return
}
