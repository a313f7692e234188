pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %r = pallas.argmin %v[2] : tensor<4x8xf32> -> tensor<4x8xi32>
  pallas.return
}
