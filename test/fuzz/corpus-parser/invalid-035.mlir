pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %f = arith.constant 1.0 : f32
  %v = pallas.load %r[0, %f] : !pallas.ref<4x8xf32>, f32 -> f32
  pallas.return
}
