// Row softmax, TPU style: eight full rows per program.
pallas.kernel @row_softmax(%x: !pallas.ref<8x1024xf32>, %o: !pallas.ref<8x1024xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<8x1024xf32> -> tensor<8x1024xf32>
  %m = pallas.reduce max %v [1] : tensor<8x1024xf32> -> tensor<8xf32>
  %mb = pallas.broadcast %m dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %d = arith.subf %v, %mb : tensor<8x1024xf32>
  %e = math.exp %d : tensor<8x1024xf32>
  %s = pallas.reduce sum %e [1] : tensor<8x1024xf32> -> tensor<8xf32>
  %sb = pallas.broadcast %s dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %r = arith.divf %e, %sb : tensor<8x1024xf32>
  pallas.store %o[...], %r : !pallas.ref<8x1024xf32>, tensor<8x1024xf32>
  pallas.return
}
