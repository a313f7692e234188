pallas.kernel @sl(%x: !pallas.ref<16x256xf32>, %o: !pallas.ref<8x128xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<16x256xf32> -> tensor<16x256xf32>
  %s = tensor.extract_slice %v[8, 0] [8, 128] [1, 1] : tensor<16x256xf32> to tensor<8x128xf32>
  pallas.store %o[...], %s : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  pallas.return
}
