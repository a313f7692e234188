// NumPy advanced indexing on a 2-D block: rows picked by an index tensor
// with a slice of columns (o1 = x[rows, 2:10:2]), and two index tensors
// broadcast together (o2 = x[rows[:, None], cols[None, :]]).
pallas.kernel @gather2d(%x: !pallas.ref<32x16xf32>, %rows: !pallas.ref<8xi32>,
                        %cols: !pallas.ref<4xi32>, %o1: !pallas.ref<8x4xf32>,
                        %o2: !pallas.ref<8x4xf32>) {
  %r = pallas.load %rows[...] : !pallas.ref<8xi32> -> tensor<8xi32>
  %c = pallas.load %cols[...] : !pallas.ref<4xi32> -> tensor<4xi32>
  %a = pallas.load %x[%r, ds(2, 4, 2)] : !pallas.ref<32x16xf32>, tensor<8xi32> -> tensor<8x4xf32>
  pallas.store %o1[...], %a : !pallas.ref<8x4xf32>, tensor<8x4xf32>
  %r2 = pallas.reshape %r : tensor<8xi32> -> tensor<8x1xi32>
  %c2 = pallas.reshape %c : tensor<4xi32> -> tensor<1x4xi32>
  %b = pallas.load %x[%r2, %c2] : !pallas.ref<32x16xf32>, tensor<8x1xi32>, tensor<1x4xi32> -> tensor<8x4xf32>
  pallas.store %o2[...], %b : !pallas.ref<8x4xf32>, tensor<8x4xf32>
  pallas.return
}
