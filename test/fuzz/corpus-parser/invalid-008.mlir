pallas.kernel @k(%r: !pallas.ref<4xf32>, %t: tensor<4xf32>) {
  pallas.return
}
