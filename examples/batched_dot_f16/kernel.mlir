// A batched (3-D) f16 dot with the rhs transposed, as jnp.einsum("bqd,bkd->bqk")
// writes attention scores: one leading batch dim, f32 results.
pallas.kernel @batched_dot_f16(%a: !pallas.ref<4x64x32xf16>, %b: !pallas.ref<4x64x32xf16>,
                               %o: !pallas.ref<4x64x64xf32>) {
  %x = pallas.load %a[...] : !pallas.ref<4x64x32xf16> -> tensor<4x64x32xf16>
  %y = pallas.load %b[...] : !pallas.ref<4x64x32xf16> -> tensor<4x64x32xf16>
  %d = pallas.dot %x, %y {transpose_rhs} : tensor<4x64x32xf16>, tensor<4x64x32xf16> -> tensor<4x64x64xf32>
  pallas.store %o[...], %d : !pallas.ref<4x64x64xf32>, tensor<4x64x64xf32>
  pallas.return
}
