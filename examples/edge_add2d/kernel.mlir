// 2-D add whose 32x32 blocks do not divide the 100x70 arrays: the last row
// and column of blocks overhang; their reads give 0 and their writes drop.
pallas.kernel @edge_add2d(%x: !pallas.ref<32x32xf32>, %y: !pallas.ref<32x32xf32>,
                          %o: !pallas.ref<32x32xf32>) {
  %a = pallas.load %x[...] : !pallas.ref<32x32xf32> -> tensor<32x32xf32>
  %b = pallas.load %y[...] : !pallas.ref<32x32xf32> -> tensor<32x32xf32>
  %c = arith.addf %a, %b : tensor<32x32xf32>
  pallas.store %o[...], %c : !pallas.ref<32x32xf32>, tensor<32x32xf32>
  pallas.return
}
