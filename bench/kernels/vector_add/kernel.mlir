// Benchmark: 1-D f32 vector add, o = x + y, 2^26 elements in blocks of 1024
// (grid 65536). Memory-bound: 12 bytes move per element, nothing is reused,
// so its time against a device-to-device copy of the same bytes says how
// close the generated code gets to the memory system's bandwidth.
pallas.kernel @vector_add(%x: !pallas.ref<1024xf32>, %y: !pallas.ref<1024xf32>,
                          %o: !pallas.ref<1024xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %b = pallas.load %y[...] : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %c = arith.addf %a, %b : tensor<1024xf32>
  pallas.store %o[...], %c : !pallas.ref<1024xf32>, tensor<1024xf32>
  pallas.return
}
