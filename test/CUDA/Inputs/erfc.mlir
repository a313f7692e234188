// An elementwise erfc: a libdevice call (__nv_erfcf) on CUDA targets.
pallas.kernel @erfc_kernel(%x: !pallas.ref<256xf32>, %o: !pallas.ref<256xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<256xf32> -> tensor<256xf32>
  %e = math.erfc %v : tensor<256xf32>
  pallas.store %o[...], %e : !pallas.ref<256xf32>, tensor<256xf32>
  pallas.return
}
