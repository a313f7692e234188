pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %d = pallas.dot %a, %a {transpose_lhs, transpose_rhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x4xf32>
  pallas.return
}
