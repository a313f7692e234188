pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x16xf32>
  %d = pallas.dot %a, %b {precision = "fast"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  pallas.return
}
