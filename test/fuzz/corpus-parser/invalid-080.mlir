pallas.kernel @k() {
  %v = arith.constant dense<1.0> : tensor<4x8xf32>
  %t = pallas.concatenate %v, %v {dim = 2 : i64} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  pallas.return
}
