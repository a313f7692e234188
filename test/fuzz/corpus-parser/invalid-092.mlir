pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %r = pallas.argmax %v[1] : tensor<4x8xf32> -> tensor<8xi32>
  pallas.return
}
