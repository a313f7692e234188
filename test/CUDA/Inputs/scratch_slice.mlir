// A slice of a scoped buffer read back: the CUDA and triton targets keep
// buffers in registers and read them whole or by index only.
pallas.kernel @sl(%x: !pallas.ref<16x128xf32>, %o: !pallas.ref<8x128xf32>) {
  pallas.run_scoped (%buf: !pallas.ref<16x128xf32, vmem>) {
    %v = pallas.load %x[...] : !pallas.ref<16x128xf32> -> tensor<16x128xf32>
    pallas.store %buf[...], %v : !pallas.ref<16x128xf32, vmem>, tensor<16x128xf32>
    %w = pallas.load %buf[ds(0, 8), :] : !pallas.ref<16x128xf32, vmem> -> tensor<8x128xf32>
    pallas.store %o[...], %w : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  }
  pallas.return
}
