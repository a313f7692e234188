pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %r = pallas.reduce mean %v [0] : tensor<8xf32> -> f32
  pallas.return
}
