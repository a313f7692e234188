// Activations quantized to fp8 inside the GEMM that reads them, as fp8
// training recipes do: xq = f8(x * inv_scale_x) for a bf16 x (per-tensor
// scale, scalar prefetch), z = bf16(scale_x * scale_w * (xq @ w^T)) with w
// [N, K] already in f8E4M3FN (K-major, as sm_90a's wgmma reads f8), and xq
// stored too, for the backward pass to reuse. The dot's A is computed in
// the kernel, not loaded: on sm_90a it goes to the tensor cores through
// shared memory.
pallas.kernel @quantize_matmul_f8(%scales: !pallas.ref<3xf32, smem>,
                                  %x: !pallas.ref<128x256xbf16>, %w: !pallas.ref<256x256xf8E4M3FN>,
                                  %z: !pallas.ref<128x256xbf16>, %xq: !pallas.ref<128x256xf8E4M3FN>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %inv = pallas.load %scales[%c0] : !pallas.ref<3xf32, smem>, i32 -> f32
  %sx = pallas.load %scales[%c1] : !pallas.ref<3xf32, smem>, i32 -> f32
  %sw = pallas.load %scales[%c2] : !pallas.ref<3xf32, smem>, i32 -> f32
  %xv = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %xf = arith.extf %xv : tensor<128x256xbf16> to tensor<128x256xf32>
  %invb = pallas.broadcast %inv : f32 -> tensor<128x256xf32>
  %xs = arith.mulf %xf, %invb : tensor<128x256xf32>
  %q = arith.truncf %xs : tensor<128x256xf32> to tensor<128x256xf8E4M3FN>
  pallas.store %xq[...], %q : !pallas.ref<128x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>
  %wv = pallas.load %w[...] : !pallas.ref<256x256xf8E4M3FN> -> tensor<256x256xf8E4M3FN>
  %d = pallas.dot %q, %wv {transpose_rhs} : tensor<128x256xf8E4M3FN>, tensor<256x256xf8E4M3FN> -> tensor<128x256xf32>
  %s = arith.mulf %sx, %sw : f32
  %sb = pallas.broadcast %s : f32 -> tensor<128x256xf32>
  %scaled = arith.mulf %d, %sb : tensor<128x256xf32>
  %r = arith.truncf %scaled : tensor<128x256xf32> to tensor<128x256xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
