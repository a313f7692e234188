pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = pallas.load %r[0, ds(1, 4, 3)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  pallas.return
}
