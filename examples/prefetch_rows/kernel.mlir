// Data-dependent blocks: program i copies row rows[i] of x (scalar prefetch
// and an "@fn" index map), times 2.
func.func @row_of(%i: i32, %rows: !pallas.ref<4xi32, smem>) -> (i32, i32) {
  %r = pallas.load %rows[%i] : !pallas.ref<4xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %r, %c0 : i32, i32
}

pallas.kernel @prefetch_rows(%rows: !pallas.ref<4xi32, smem>, %x: !pallas.ref<128xf32>,
                             %o: !pallas.ref<128xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %two = arith.constant dense<2.0> : tensor<128xf32>
  %r = arith.mulf %v, %two : tensor<128xf32>
  pallas.store %o[...], %r : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}
