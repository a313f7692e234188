// A 2048x2048 f32 block stored back into its input ref: pallas-split-programs
// cannot split it (the ref is read and written), and one CTA of 128 threads
// would hold 32768 elements each.
pallas.kernel @big_inplace(%x: !pallas.ref<2048x2048xf32>, %o: !pallas.ref<2048x2048xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<2048x2048xf32> -> tensor<2048x2048xf32>
  pallas.store %x[...], %a : !pallas.ref<2048x2048xf32>, tensor<2048x2048xf32>
  pallas.return
}
