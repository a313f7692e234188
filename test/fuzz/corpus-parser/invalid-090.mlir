pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %r = pallas.reduce xor %v [0] : tensor<8xf32> -> f32
  pallas.return
}
