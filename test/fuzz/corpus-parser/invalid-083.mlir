pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<4x2xf32>
  %t = pallas.concatenate %a, %b {dim = 1 : i64} : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x8xf32>
  pallas.return
}
