// Copies 2048x2048 f32 blocks: 16 MiB each, double-buffered in and out.
pallas.kernel @big_copy(%x: !pallas.ref<2048x2048xf32>, %o: !pallas.ref<2048x2048xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<2048x2048xf32> -> tensor<2048x2048xf32>
  pallas.store %o[...], %v : !pallas.ref<2048x2048xf32>, tensor<2048x2048xf32>
  pallas.return
}
