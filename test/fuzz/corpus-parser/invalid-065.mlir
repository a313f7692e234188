pallas.kernel @k() {
  %t = pallas.iota 2 : tensor<4x8xi32>
  pallas.return
}
