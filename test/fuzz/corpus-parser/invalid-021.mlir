pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = pallas.load %r[0, ds(0, 0)] : !pallas.ref<4x8xf32> -> tensor<0xf32>
  pallas.return
}
