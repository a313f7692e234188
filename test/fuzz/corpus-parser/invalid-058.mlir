pallas.kernel @k(%r: !pallas.ref<64x128xf32, any>) {
  %s = pallas.ref_slice %r[ds(0, 8), :] : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32>
  pallas.return
}
