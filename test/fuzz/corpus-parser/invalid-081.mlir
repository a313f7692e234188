pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4xf32>
  %b = arith.constant dense<1.0> : tensor<4xf16>
  %t = pallas.concatenate %a, %b {dim = 0 : i64} : tensor<4xf32>, tensor<4xf16> -> tensor<8xf32>
  pallas.return
}
