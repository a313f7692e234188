// Benchmark: layer normalisation of 2048 rows of 768 f32 (a transformer's
// hidden size), 8 rows per program in 8x1024 blocks whose tail columns are
// masked. Small enough that launching it costs about as much as running it,
// which is what the launch benchmark (bench/gpu/launch/) measures.
pallas.kernel @layernorm(%x: !pallas.ref<8x1024xf32>, %w: !pallas.ref<1024xf32>,
                         %b: !pallas.ref<1024xf32>, %o: !pallas.ref<8x1024xf32>) {
  %cols = pallas.iota 1 : tensor<8x1024xi32>
  %width = arith.constant dense<768> : tensor<8x1024xi32>
  %mask = arith.cmpi slt, %cols, %width : tensor<8x1024xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<8x1024xf32>
  %v = pallas.load %x[...] mask %mask other %zero : !pallas.ref<8x1024xf32> -> tensor<8x1024xf32>
  // 1/768, rounded to f32.
  %inv_n = arith.constant dense<0x3AAAAAAB> : tensor<8xf32>
  %sum = pallas.reduce sum %v [1] : tensor<8x1024xf32> -> tensor<8xf32>
  %mean = arith.mulf %sum, %inv_n : tensor<8xf32>
  %mb = pallas.broadcast %mean dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %centred = arith.subf %v, %mb : tensor<8x1024xf32>
  %d = arith.select %mask, %centred, %zero : tensor<8x1024xi1>, tensor<8x1024xf32>
  %sq = arith.mulf %d, %d : tensor<8x1024xf32>
  %ss = pallas.reduce sum %sq [1] : tensor<8x1024xf32> -> tensor<8xf32>
  %var = arith.mulf %ss, %inv_n : tensor<8xf32>
  %eps = arith.constant dense<1.000000e-05> : tensor<8xf32>
  %ve = arith.addf %var, %eps : tensor<8xf32>
  %rs = math.rsqrt %ve : tensor<8xf32>
  %rb = pallas.broadcast %rs dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %n = arith.mulf %d, %rb : tensor<8x1024xf32>
  %cols1 = pallas.iota 0 : tensor<1024xi32>
  %width1 = arith.constant dense<768> : tensor<1024xi32>
  %mask1 = arith.cmpi slt, %cols1, %width1 : tensor<1024xi32>
  %zero1 = arith.constant dense<0.000000e+00> : tensor<1024xf32>
  %wv = pallas.load %w[...] mask %mask1 other %zero1 : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %bv = pallas.load %b[...] mask %mask1 other %zero1 : !pallas.ref<1024xf32> -> tensor<1024xf32>
  %wb = pallas.broadcast %wv : tensor<1024xf32> -> tensor<8x1024xf32>
  %bb = pallas.broadcast %bv : tensor<1024xf32> -> tensor<8x1024xf32>
  %s = arith.mulf %n, %wb : tensor<8x1024xf32>
  %r = arith.addf %s, %bb : tensor<8x1024xf32>
  pallas.store %o[...], %r mask %mask : !pallas.ref<8x1024xf32>, tensor<8x1024xf32>
  pallas.return
}
