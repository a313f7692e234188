pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %a = pallas.iota 0 : tensor<4xi32>
  %b = pallas.iota 0 : tensor<3xi32>
  %v = pallas.load %r[%a, %b] : !pallas.ref<4x8xf32>, tensor<4xi32>, tensor<3xi32> -> tensor<4xf32>
  pallas.return
}
