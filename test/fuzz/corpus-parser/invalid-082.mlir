pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<2x4xf32>
  %t = pallas.concatenate %a, %b {dim = 0 : i64} : tensor<4x8xf32>, tensor<2x4xf32> -> tensor<6x8xf32>
  pallas.return
}
