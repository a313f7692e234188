// RMS normalisation of 8-row blocks: each row scaled by the reciprocal of
// its root mean square, then by a learned weight.
pallas.kernel @rms_norm(%x: !pallas.ref<8x512xf32>, %w: !pallas.ref<512xf32>,
                        %o: !pallas.ref<8x512xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<8x512xf32> -> tensor<8x512xf32>
  %sq = arith.mulf %v, %v : tensor<8x512xf32>
  %ss = pallas.reduce sum %sq [1] : tensor<8x512xf32> -> tensor<8xf32>
  %inv_n = arith.constant dense<1.953125e-03> : tensor<8xf32>
  %ms = arith.mulf %ss, %inv_n : tensor<8xf32>
  %eps = arith.constant dense<1.000000e-06> : tensor<8xf32>
  %mse = arith.addf %ms, %eps : tensor<8xf32>
  %r = math.rsqrt %mse : tensor<8xf32>
  %rb = pallas.broadcast %r dims [0] : tensor<8xf32> -> tensor<8x512xf32>
  %n = arith.mulf %v, %rb : tensor<8x512xf32>
  %wv = pallas.load %w[...] : !pallas.ref<512xf32> -> tensor<512xf32>
  %wb = pallas.broadcast %wv : tensor<512xf32> -> tensor<8x512xf32>
  %y = arith.mulf %n, %wb : tensor<8x512xf32>
  pallas.store %o[...], %y : !pallas.ref<8x512xf32>, tensor<8x512xf32>
  pallas.return
}
