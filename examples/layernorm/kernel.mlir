// Layer normalisation of 8-row blocks: mean and variance by row reductions,
// scaled by math.rsqrt, then a learned scale and shift.
pallas.kernel @layernorm(%x: !pallas.ref<8x256xf32>, %w: !pallas.ref<256xf32>,
                         %b: !pallas.ref<256xf32>, %o: !pallas.ref<8x256xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<8x256xf32> -> tensor<8x256xf32>
  %inv_n = arith.constant dense<3.906250e-03> : tensor<8xf32>
  %sum = pallas.reduce sum %v [1] : tensor<8x256xf32> -> tensor<8xf32>
  %mean = arith.mulf %sum, %inv_n : tensor<8xf32>
  %mb = pallas.broadcast %mean dims [0] : tensor<8xf32> -> tensor<8x256xf32>
  %d = arith.subf %v, %mb : tensor<8x256xf32>
  %sq = arith.mulf %d, %d : tensor<8x256xf32>
  %ss = pallas.reduce sum %sq [1] : tensor<8x256xf32> -> tensor<8xf32>
  %var = arith.mulf %ss, %inv_n : tensor<8xf32>
  %eps = arith.constant dense<1.000000e-05> : tensor<8xf32>
  %ve = arith.addf %var, %eps : tensor<8xf32>
  %rs = math.rsqrt %ve : tensor<8xf32>
  %rb = pallas.broadcast %rs dims [0] : tensor<8xf32> -> tensor<8x256xf32>
  %n = arith.mulf %d, %rb : tensor<8x256xf32>
  %wv = pallas.load %w[...] : !pallas.ref<256xf32> -> tensor<256xf32>
  %bv = pallas.load %b[...] : !pallas.ref<256xf32> -> tensor<256xf32>
  %wb = pallas.broadcast %wv : tensor<256xf32> -> tensor<8x256xf32>
  %bb = pallas.broadcast %bv : tensor<256xf32> -> tensor<8x256xf32>
  %s = arith.mulf %n, %wb : tensor<8x256xf32>
  %r = arith.addf %s, %bb : tensor<8x256xf32>
  pallas.store %o[...], %r : !pallas.ref<8x256xf32>, tensor<8x256xf32>
  pallas.return
}
