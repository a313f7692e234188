pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  %o = pallas.atomic_rmw sub %r[0], %v : !pallas.ref<8xi32>, i32
  pallas.return
}
