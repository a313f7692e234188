pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %o = pallas.atomic_rmw or %r[...], %v : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}
