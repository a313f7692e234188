pallas.kernel @k() {
  %t = pallas.iota 0 : tensor<8xf32>
  pallas.return
}
