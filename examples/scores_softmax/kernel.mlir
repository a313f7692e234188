// Attention probabilities of a short sequence: softmax(q k^T / 8) of 32
// query rows against 64 keys per program (D = 64, bf16 operands, f32
// results), with each row's max and sum as outputs too. Four warps tile
// the 32x64 scores two by two, so each row's max and sum combine across
// the two warps sharing it.
pallas.kernel @scores_softmax(%q: !pallas.ref<32x64xbf16>, %k: !pallas.ref<64x64xbf16>,
                              %p: !pallas.ref<32x64xf32>, %m: !pallas.ref<32xf32>,
                              %l: !pallas.ref<32xf32>) {
  %qv = pallas.load %q[...] : !pallas.ref<32x64xbf16> -> tensor<32x64xbf16>
  %kv = pallas.load %k[...] : !pallas.ref<64x64xbf16> -> tensor<64x64xbf16>
  %s0 = pallas.dot %qv, %kv {transpose_rhs} : tensor<32x64xbf16>, tensor<64x64xbf16> -> tensor<32x64xf32>
  %scale = arith.constant dense<0.125> : tensor<32x64xf32>
  %s = arith.mulf %s0, %scale : tensor<32x64xf32>
  %mx = pallas.reduce max %s [1] : tensor<32x64xf32> -> tensor<32xf32>
  %mb = pallas.broadcast %mx dims [0] : tensor<32xf32> -> tensor<32x64xf32>
  %d = arith.subf %s, %mb : tensor<32x64xf32>
  %e = math.exp %d : tensor<32x64xf32>
  %sum = pallas.reduce sum %e [1] : tensor<32x64xf32> -> tensor<32xf32>
  %sb = pallas.broadcast %sum dims [0] : tensor<32xf32> -> tensor<32x64xf32>
  %pv = arith.divf %e, %sb : tensor<32x64xf32>
  pallas.store %p[...], %pv : !pallas.ref<32x64xf32>, tensor<32x64xf32>
  pallas.store %m[...], %mx : !pallas.ref<32xf32>, tensor<32xf32>
  pallas.store %l[...], %sum : !pallas.ref<32xf32>, tensor<32xf32>
  pallas.return
}
