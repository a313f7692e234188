pallas.kernel @k(%r: !pallas.ref<8xf32>) {
  %c = arith.constant 1.0 : f32
  %o = pallas.atomic_cas %r[0], %c, %c : !pallas.ref<8xf32>, f32
  pallas.return
}
