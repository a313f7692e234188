// Row statistics kept lane-replicated, as JAX's TPU flash attention keeps
// its running max and sum ([rows, 128], every lane the same): a program
// takes the first lane of each (lax.slice), and normalizes its 32 rows of
// scores with them: exp(s - m) / l. The slice goes through shared memory
// on the CUDA target.
pallas.kernel @lane_stats(%s: !pallas.ref<32x256xf32>, %m: !pallas.ref<32x128xf32>,
                          %l: !pallas.ref<32x128xf32>, %p: !pallas.ref<32x256xf32>) {
  %sv = pallas.load %s[...] : !pallas.ref<32x256xf32> -> tensor<32x256xf32>
  %mv = pallas.load %m[...] : !pallas.ref<32x128xf32> -> tensor<32x128xf32>
  %lv = pallas.load %l[...] : !pallas.ref<32x128xf32> -> tensor<32x128xf32>
  %m0 = tensor.extract_slice %mv[0, 0] [32, 1] [1, 1] : tensor<32x128xf32> to tensor<32x1xf32>
  %l0 = tensor.extract_slice %lv[0, 0] [32, 1] [1, 1] : tensor<32x128xf32> to tensor<32x1xf32>
  %m1 = pallas.reshape %m0 : tensor<32x1xf32> -> tensor<32xf32>
  %l1 = pallas.reshape %l0 : tensor<32x1xf32> -> tensor<32xf32>
  %mb = pallas.broadcast %m1 dims [0] : tensor<32xf32> -> tensor<32x256xf32>
  %lb = pallas.broadcast %l1 dims [0] : tensor<32xf32> -> tensor<32x256xf32>
  %d = arith.subf %sv, %mb : tensor<32x256xf32>
  %e = math.exp %d : tensor<32x256xf32>
  %pv = arith.divf %e, %lb : tensor<32x256xf32>
  pallas.store %p[...], %pv : !pallas.ref<32x256xf32>, tensor<32x256xf32>
  pallas.return
}
