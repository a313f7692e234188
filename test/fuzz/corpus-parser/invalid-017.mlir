pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %v = pallas.load %r[] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  pallas.return
}
