// Kernels whose blocks meet the TPU rules but whose ops Mosaic cannot run.
pallas.kernel @masked(%x: !pallas.ref<8x128xf32>, %o: !pallas.ref<8x128xf32>) {
  %c = pallas.iota 1 : tensor<8x128xi32>
  %n = arith.constant dense<100> : tensor<8x128xi32>
  %m = arith.cmpi slt, %c, %n : tensor<8x128xi32>
  %v = pallas.load %x[...] mask %m : !pallas.ref<8x128xf32> -> tensor<8x128xf32>
  pallas.store %o[...], %v : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  pallas.return
}

pallas.kernel @atomic(%x: !pallas.ref<8x128xi32>, %o: !pallas.ref<8x128xi32>) {
  %v = pallas.load %x[...] : !pallas.ref<8x128xi32> -> tensor<8x128xi32>
  %old = pallas.atomic_rmw add %o[ds(0, 8), :], %v : !pallas.ref<8x128xi32>, tensor<8x128xi32>
  pallas.return
}

pallas.kernel @wide(%x: !pallas.ref<8x128xf64>, %o: !pallas.ref<8x128xf64>) {
  %v = pallas.load %x[...] : !pallas.ref<8x128xf64> -> tensor<8x128xf64>
  pallas.store %o[...], %v : !pallas.ref<8x128xf64>, tensor<8x128xf64>
  pallas.return
}
