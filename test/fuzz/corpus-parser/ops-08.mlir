pallas.kernel @dots(%r: !pallas.ref<4x8xf32>) {
  %a = arith.constant dense<1.0> : tensor<4x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x16xf32>
  %acc = arith.constant dense<0.0> : tensor<4x16xf32>
  %ht = arith.constant dense<1.0> : tensor<8x4xf16>
  %bt = arith.constant dense<1.0> : tensor<16x8xbf16>
  %bb = arith.constant dense<1.0> : tensor<8x16xbf16>
  %qa = arith.constant dense<1> : tensor<4x8xi8>
  %qb = arith.constant dense<1> : tensor<8x16xi8>
  %qacc = arith.constant dense<0> : tensor<4x16xi32>
  %ba = arith.constant dense<1.0> : tensor<2x4x8xbf16>
  %bbb = arith.constant dense<1.0> : tensor<2x8x16xbf16>
  %dd = arith.constant dense<1.0> : tensor<4x4xf64>

  %d0 = pallas.dot %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %d1 = pallas.dot %a, %b acc %acc : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %d2 = pallas.dot %a, %b {precision = "default"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %d3 = pallas.dot %a, %b acc %d0 {precision = "high"} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %d4 = pallas.dot %ht, %ht {transpose_lhs, precision = "highest"} : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
  %d5 = pallas.dot %bb, %bt {transpose_rhs, transpose_lhs} : tensor<8x16xbf16>, tensor<16x8xbf16> -> tensor<16x16xf32>
  %d6 = pallas.dot %qa, %qb acc %qacc : tensor<4x8xi8>, tensor<8x16xi8>, tensor<4x16xi32> -> tensor<4x16xi32>
  %d7 = pallas.dot %ba, %bbb : tensor<2x4x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x4x16xf32>
  %d8 = pallas.dot %ba, %ba {transpose_rhs} : tensor<2x4x8xbf16>, tensor<2x4x8xbf16> -> tensor<2x4x4xf32>
  %d9 = pallas.dot %dd, %dd acc %dd : tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  pallas.return
}
