// o = x + y over 2^22 f32 in blocks of 1024 (grid 4096): enough work per
// launch for several threads to pay.
pallas.kernel @big_add(%x: !pallas.ref<1024xf32>, %y: !pallas.ref<1024xf32>,
                       %o: !pallas.ref<1024xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %b = pallas.load %y[...] : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %c = arith.addf %a, %b : tensor<1024xf32>
  pallas.store %o[...], %c : !pallas.ref<1024xf32>, tensor<1024xf32>
  pallas.return
}
