// erf over 2^20 f32 elements, 1024 a program: bench/gpu/erf_accuracy.py.
pallas.kernel @erf_1m(%x: !pallas.ref<1024xf32>, %o: !pallas.ref<1024xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %e = math.erf %v : tensor<1024xf32>
  pallas.store %o[...], %e : !pallas.ref<1024xf32>, tensor<1024xf32>
  pallas.return
}
