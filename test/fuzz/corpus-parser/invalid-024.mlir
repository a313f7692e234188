pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  pallas.store %r[0, 0, 0], %r : !pallas.ref<4x8xf32>, !pallas.ref<4x8xf32>
  pallas.return
}
