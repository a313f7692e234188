pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %r = pallas.argmax %v[0] : tensor<8xf32> -> i64
  pallas.return
}
