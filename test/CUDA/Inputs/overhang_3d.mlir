// A batched dot whose w blocks (256 rows) overhang w's middle dim (160 rows).
pallas.kernel @ovh(%x: !pallas.ref<128x256xbf16>, %w: !pallas.ref<256x256xbf16>, %z: !pallas.ref<128x256xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %w[...] : !pallas.ref<256x256xbf16> -> tensor<256x256xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %d = pallas.dot %a, %b acc %zero : tensor<128x256xbf16>, tensor<256x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  pallas.store %z[...], %d : !pallas.ref<128x256xf32>, tensor<128x256xf32>
  pallas.return
}
