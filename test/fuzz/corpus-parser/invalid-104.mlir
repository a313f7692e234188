pallas.kernel @k() {
  %a = arith.constant dense<1> : tensor<4x8xi8>
  %b = arith.constant dense<1> : tensor<8x16xi8>
  %c = arith.constant dense<0> : tensor<4x16xi16>
  %d = pallas.dot %a, %b acc %c : tensor<4x8xi8>, tensor<8x16xi8>, tensor<4x16xi16> -> tensor<4x16xi32>
  pallas.return
}
