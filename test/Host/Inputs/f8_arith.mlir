// f8 arithmetic on the host: a product in f8E4M3FN and exp in f8E5M2 of
// every code (test/Host/f8.test compares them with ml_dtypes).
pallas.kernel @f8_arith(%x: !pallas.ref<256xf8E4M3FN>, %y: !pallas.ref<256xf8E5M2>, %o: !pallas.ref<256xf8E4M3FN>, %o2: !pallas.ref<256xf8E5M2>) {
  %v = pallas.load %x[...] : !pallas.ref<256xf8E4M3FN> -> tensor<256xf8E4M3FN>
  %w = arith.mulf %v, %v : tensor<256xf8E4M3FN>
  pallas.store %o[...], %w : !pallas.ref<256xf8E4M3FN>, tensor<256xf8E4M3FN>
  %u = pallas.load %y[...] : !pallas.ref<256xf8E5M2> -> tensor<256xf8E5M2>
  %e = math.exp %u : tensor<256xf8E5M2>
  pallas.store %o2[...], %e : !pallas.ref<256xf8E5M2>, tensor<256xf8E5M2>
  pallas.return
}
