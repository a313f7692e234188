pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %m = arith.constant dense<true> : tensor<4xi1>
  %v = pallas.load %r[0, :] mask %m : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}
