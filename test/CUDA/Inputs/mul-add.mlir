// o = x * y + z in f32: one multiply-add per element.
pallas.kernel @mul_add(%x: !pallas.ref<128xf32>, %y: !pallas.ref<128xf32>, %z: !pallas.ref<128xf32>,
                       %o: !pallas.ref<128xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %b = pallas.load %y[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %c = pallas.load %z[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %p = arith.mulf %a, %b : tensor<128xf32>
  %r = arith.addf %p, %c : tensor<128xf32>
  pallas.store %o[...], %r : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}
