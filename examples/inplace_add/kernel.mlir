// x += y in place: output 0 aliases input 0 (input_output_aliases).
pallas.kernel @inplace_add(%x: !pallas.ref<16xf32>, %y: !pallas.ref<16xf32>, %o: !pallas.ref<16xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<16xf32> -> tensor<16xf32>
  %b = pallas.load %y[...] : !pallas.ref<16xf32> -> tensor<16xf32>
  %c = arith.addf %a, %b : tensor<16xf32>
  pallas.store %o[...], %c : !pallas.ref<16xf32>, tensor<16xf32>
  pallas.return
}
