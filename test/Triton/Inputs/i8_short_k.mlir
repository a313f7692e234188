pallas.kernel @i8_short_k(%a: !pallas.ref<64x16xi8>, %b: !pallas.ref<16x32xi8>, %o: !pallas.ref<64x32xi32>) {
  %x = pallas.load %a[...] : !pallas.ref<64x16xi8> -> tensor<64x16xi8>
  %y = pallas.load %b[...] : !pallas.ref<16x32xi8> -> tensor<16x32xi8>
  %d = pallas.dot %x, %y : tensor<64x16xi8>, tensor<16x32xi8> -> tensor<64x32xi32>
  pallas.store %o[...], %d : !pallas.ref<64x32xi32>, tensor<64x32xi32>
  pallas.return
}
