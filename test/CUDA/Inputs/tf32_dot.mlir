// A TF32 dot whose operands are not two whole loads keeps all of K: A
// (128x256) and B (256x64) go to shared memory with padded rows, about
// (128 + 64) * 256 * 4 = 192 KiB and a little padding: more than sm_80
// allows per CTA, less than sm_90a.
pallas.kernel @tf32_dot(%x: !pallas.ref<128x256xf32>, %y: !pallas.ref<256x64xf32>, %o: !pallas.ref<128x64xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<128x256xf32> -> tensor<128x256xf32>
  %e = math.exp %a : tensor<128x256xf32>
  %b = pallas.load %y[...] : !pallas.ref<256x64xf32> -> tensor<256x64xf32>
  %d = pallas.dot %e, %b : tensor<128x256xf32>, tensor<256x64xf32> -> tensor<128x64xf32>
  pallas.store %o[...], %d : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}
