pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %o = arith.constant dense<0.0> : tensor<8xf32>
  %v = pallas.load %r[0, :] other %o : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}
