pallas.kernel @k(%r: !pallas.ref<32xf32>) {
  %t = pallas.iota 0 : tensor<8xi32>
  %s = pallas.ref_slice %r[%t] : !pallas.ref<32xf32>, tensor<8xi32> -> !pallas.ref<8xf32>
  pallas.return
}
