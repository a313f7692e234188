// Scalar prefetch: program i reads block rows[i] of x (an "@fn" index map
// over the SMEM table) and writes it, plus one, to block i of o.
func.func @pick(%i: i32, %rows: !pallas.ref<8xi32, smem>) -> (i32, i32) {
  %r = pallas.load %rows[%i] : !pallas.ref<8xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %r, %c0 : i32, i32
}

pallas.kernel @prefetch_blocks(%rows: !pallas.ref<8xi32, smem>, %x: !pallas.ref<8x128xf32>,
                               %o: !pallas.ref<8x128xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<8x128xf32> -> tensor<8x128xf32>
  %one = arith.constant dense<1.0> : tensor<8x128xf32>
  %r = arith.addf %v, %one : tensor<8x128xf32>
  pallas.store %o[...], %r : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  pallas.return
}
