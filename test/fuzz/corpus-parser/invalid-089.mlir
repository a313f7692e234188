pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %r = pallas.reduce prod %v [0] : tensor<8xf32> -> tensor<f32>
  pallas.return
}
