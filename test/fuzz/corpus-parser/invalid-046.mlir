pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = arith.constant dense<0.0> : tensor<8xf16>
  pallas.store %r[0, :], %v : !pallas.ref<4x8xf32>, tensor<8xf16>
  pallas.return
}
