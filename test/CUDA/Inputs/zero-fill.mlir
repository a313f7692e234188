// A 128 x 128 f32 block of zeros: an accumulator's fill before a kernel
// adds into it.
pallas.kernel @zero_fill(%acc: !pallas.ref<128x128xf32>) {
  %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  pallas.store %acc[...], %z : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}
