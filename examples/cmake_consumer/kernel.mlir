// Each program scales its 8 x 128 block of rows by 2 and adds 1.
pallas.kernel @scale_rows(%x: !pallas.ref<8x128xf32>, %o: !pallas.ref<8x128xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<8x128xf32> -> tensor<8x128xf32>
  %two = arith.constant dense<2.0> : tensor<8x128xf32>
  %one = arith.constant dense<1.0> : tensor<8x128xf32>
  %b = arith.mulf %a, %two : tensor<8x128xf32>
  %c = arith.addf %b, %one : tensor<8x128xf32>
  pallas.store %o[...], %c : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  pallas.return
}
