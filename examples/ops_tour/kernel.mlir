// One block through the tensor primitives: cumsum, argmax, transpose, a
// min-reduction, reshape, concatenate, broadcast with dims, a transposed dot.
pallas.kernel @ops_tour(%x: !pallas.ref<8x16xf32>, %cs: !pallas.ref<8x16xf32>,
                        %am: !pallas.ref<8xi32>, %tr: !pallas.ref<16x8xf32>,
                        %mn: !pallas.ref<16xf32>, %cat: !pallas.ref<2x128xf32>,
                        %bc: !pallas.ref<8x16xf32>, %dt: !pallas.ref<16x16xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<8x16xf32> -> tensor<8x16xf32>
  %c = pallas.cumsum %v [1] : tensor<8x16xf32>
  pallas.store %cs[...], %c : !pallas.ref<8x16xf32>, tensor<8x16xf32>
  %a = pallas.argmax %v [1] : tensor<8x16xf32> -> tensor<8xi32>
  pallas.store %am[...], %a : !pallas.ref<8xi32>, tensor<8xi32>
  %t = pallas.transpose %v [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  pallas.store %tr[...], %t : !pallas.ref<16x8xf32>, tensor<16x8xf32>
  %m = pallas.reduce min %v [0] : tensor<8x16xf32> -> tensor<16xf32>
  pallas.store %mn[...], %m : !pallas.ref<16xf32>, tensor<16xf32>
  %flat = pallas.reshape %v : tensor<8x16xf32> -> tensor<1x128xf32>
  %rc = pallas.cumsum %flat [1] {reverse} : tensor<1x128xf32>
  %j = pallas.concatenate %flat, %rc {dim = 0 : i64} : tensor<1x128xf32>, tensor<1x128xf32> -> tensor<2x128xf32>
  pallas.store %cat[...], %j : !pallas.ref<2x128xf32>, tensor<2x128xf32>
  %row = pallas.load %x[0, :] : !pallas.ref<8x16xf32> -> tensor<16xf32>
  %col = pallas.load %x[:, 3] : !pallas.ref<8x16xf32> -> tensor<8xf32>
  %rb = pallas.broadcast %row : tensor<16xf32> -> tensor<8x16xf32>
  %cb = pallas.broadcast %col dims [0] : tensor<8xf32> -> tensor<8x16xf32>
  %s = arith.addf %rb, %cb : tensor<8x16xf32>
  pallas.store %bc[...], %s : !pallas.ref<8x16xf32>, tensor<8x16xf32>
  %d = pallas.dot %v, %v {transpose_lhs} : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<16x16xf32>
  pallas.store %dt[...], %d : !pallas.ref<16x16xf32>, tensor<16x16xf32>
  pallas.return
}
