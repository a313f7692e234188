pallas.kernel @odd(%x: !pallas.ref<100xf32>, %o: !pallas.ref<100xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<100xf32> -> tensor<100xf32>
  pallas.store %o[...], %v : !pallas.ref<100xf32>, tensor<100xf32>
  pallas.return
}
