// One block through the tensor primitives: cumsum, argmax, transpose, a
// min-reduction, reshape, concatenate, broadcast with dims, a transposed dot.
pallas.kernel @ops_tour(%x: !pallas.ref<16x32xf32>, %cs: !pallas.ref<16x32xf32>,
                        %am: !pallas.ref<16xi32>, %tr: !pallas.ref<32x16xf32>,
                        %mn: !pallas.ref<32xf32>, %cat: !pallas.ref<2x512xf32>,
                        %bc: !pallas.ref<16x32xf32>, %dt: !pallas.ref<32x32xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<16x32xf32> -> tensor<16x32xf32>
  %c = pallas.cumsum %v [1] : tensor<16x32xf32>
  pallas.store %cs[...], %c : !pallas.ref<16x32xf32>, tensor<16x32xf32>
  %a = pallas.argmax %v [1] : tensor<16x32xf32> -> tensor<16xi32>
  pallas.store %am[...], %a : !pallas.ref<16xi32>, tensor<16xi32>
  %t = pallas.transpose %v [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  pallas.store %tr[...], %t : !pallas.ref<32x16xf32>, tensor<32x16xf32>
  %m = pallas.reduce min %v [0] : tensor<16x32xf32> -> tensor<32xf32>
  pallas.store %mn[...], %m : !pallas.ref<32xf32>, tensor<32xf32>
  %flat = pallas.reshape %v : tensor<16x32xf32> -> tensor<1x512xf32>
  %rc = pallas.cumsum %flat [1] {reverse} : tensor<1x512xf32>
  %j = pallas.concatenate %flat, %rc {dim = 0 : i64} : tensor<1x512xf32>, tensor<1x512xf32> -> tensor<2x512xf32>
  pallas.store %cat[...], %j : !pallas.ref<2x512xf32>, tensor<2x512xf32>
  %row = pallas.load %x[0, :] : !pallas.ref<16x32xf32> -> tensor<32xf32>
  %col = pallas.load %x[:, 3] : !pallas.ref<16x32xf32> -> tensor<16xf32>
  %rb = pallas.broadcast %row : tensor<32xf32> -> tensor<16x32xf32>
  %cb = pallas.broadcast %col dims [0] : tensor<16xf32> -> tensor<16x32xf32>
  %s = arith.addf %rb, %cb : tensor<16x32xf32>
  pallas.store %bc[...], %s : !pallas.ref<16x32xf32>, tensor<16x32xf32>
  %d = pallas.dot %v, %v {transpose_lhs, precision = "highest"} : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  pallas.store %dt[...], %d : !pallas.ref<32x32xf32>, tensor<32x32xf32>
  pallas.return
}
