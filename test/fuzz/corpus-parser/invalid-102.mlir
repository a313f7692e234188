pallas.kernel @k() {
  %a = arith.constant dense<1> : tensor<4x8xi64>
  %d = pallas.dot %a, %a {transpose_rhs} : tensor<4x8xi64>, tensor<4x8xi64> -> tensor<4x4xi64>
  pallas.return
}
