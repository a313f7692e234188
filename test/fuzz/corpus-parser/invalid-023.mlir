pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = pallas.load %r[0] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}
