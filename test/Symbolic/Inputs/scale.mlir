// o = 2 * x over blocks of 8: the kernel the symbolic-size errors are
// checked against.
pallas.kernel @scale(%x: !pallas.ref<8xf32>, %o: !pallas.ref<8xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  pallas.store %o[...], %w : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}
