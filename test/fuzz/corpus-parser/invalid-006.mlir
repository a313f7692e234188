pallas.kernel @k(%r: !pallas.ref<4xf32>) -> i32 {
  pallas.return
}
