pallas.kernel @k(%r: !pallas.ref<4xui32>) {
  pallas.return
}
