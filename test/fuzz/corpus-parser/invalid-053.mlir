pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant dense<1> : tensor<4xi32>
  %o = pallas.atomic_rmw add %r[...], %v : !pallas.ref<8xi32>, tensor<4xi32>
  pallas.return
}
