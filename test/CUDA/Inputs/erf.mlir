// An elementwise erf: a libdevice call (__nv_erff) on CUDA targets.
pallas.kernel @erf_kernel(%x: !pallas.ref<256xf32>, %o: !pallas.ref<256xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<256xf32> -> tensor<256xf32>
  %e = math.erf %v : tensor<256xf32>
  pallas.store %o[...], %e : !pallas.ref<256xf32>, tensor<256xf32>
  pallas.return
}
