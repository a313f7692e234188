pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4xf32>
  %t = pallas.reshape %v : tensor<4xf32> -> tensor<2x2xf16>
  pallas.return
}
