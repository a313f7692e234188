pallas.kernel @k(%r: !pallas.ref<32xf32>) {
  %t = arith.constant dense<1.0> : tensor<8xf32>
  %v = pallas.load %r[%t] : !pallas.ref<32xf32>, tensor<8xf32> -> tensor<8xf32>
  pallas.return
}
