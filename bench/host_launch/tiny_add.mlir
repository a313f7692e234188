// o = x + y over 4096 f32 in blocks of 64 (grid 64): so little work per
// launch that the launch's own cost dominates.
pallas.kernel @tiny_add(%x: !pallas.ref<64xf32>, %y: !pallas.ref<64xf32>,
                        %o: !pallas.ref<64xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<64xf32> -> tensor<64xf32>
  %b = pallas.load %y[...] : !pallas.ref<64xf32> -> tensor<64xf32>
  %c = arith.addf %a, %b : tensor<64xf32>
  pallas.store %o[...], %c : !pallas.ref<64xf32>, tensor<64xf32>
  pallas.return
}
