// An elementwise erf: on CUDA targets a rational function inline, no call.
pallas.kernel @erf_kernel(%x: !pallas.ref<256xf32>, %o: !pallas.ref<256xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<256xf32> -> tensor<256xf32>
  %e = math.erf %v : tensor<256xf32>
  pallas.store %o[...], %e : !pallas.ref<256xf32>, tensor<256xf32>
  pallas.return
}
