// x + tensor.splat(2.5): a scalar splat written as MLIR users write it.
pallas.kernel @splat_add(%x: !pallas.ref<128xf32>, %o: !pallas.ref<128xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %c = arith.constant 2.5 : f32
  %s = tensor.splat %c : tensor<128xf32>
  %r = arith.addf %v, %s : tensor<128xf32>
  pallas.store %o[...], %r : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}
