// Attention scores as users write them with einsum("hqd,hkd->hqk"): a 3-D
// f16 dot with the rhs transposed, four heads per program, f32 results.
// The CUDA targets cut the heads over programs (pallas-split-programs,
// unbatch-dots) so that each dot is 2-D and runs on the tensor cores.
pallas.kernel @batched_scores(%q: !pallas.ref<4x512x64xf16>, %k: !pallas.ref<4x512x64xf16>,
                              %s: !pallas.ref<4x512x512xf32>) {
  %x = pallas.load %q[...] : !pallas.ref<4x512x64xf16> -> tensor<4x512x64xf16>
  %y = pallas.load %k[...] : !pallas.ref<4x512x64xf16> -> tensor<4x512x64xf16>
  %d = pallas.dot %x, %y {transpose_rhs} : tensor<4x512x64xf16>, tensor<4x512x64xf16> -> tensor<4x512x512xf32>
  pallas.store %s[...], %d : !pallas.ref<4x512x512xf32>, tensor<4x512x512xf32>
  pallas.return
}
