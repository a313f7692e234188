pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %a = pallas.iota 0 : tensor<4x1xi32>
  %b = pallas.iota 1 : tensor<1x8xi32>
  %v = pallas.load %r[%a, %b] : !pallas.ref<4x8xf32>, tensor<4x1xi32>, tensor<1x8xi32> -> tensor<8x4xf32>
  pallas.return
}
