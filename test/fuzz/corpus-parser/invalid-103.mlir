pallas.kernel @k() {
  %a = arith.constant dense<1.0> : tensor<4x8xbf16>
  %b = arith.constant dense<1.0> : tensor<8x16xbf16>
  %d = pallas.dot %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  pallas.return
}
