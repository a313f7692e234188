// Every f8 code extended to f32 and f16, and f32 values truncated to f8
// (test/Host/f8-conversions.test compares them with ml_dtypes).
pallas.kernel @f8_conversions(%e4: !pallas.ref<256xf8E4M3FN>, %e5: !pallas.ref<256xf8E5M2>,
                              %w: !pallas.ref<4096xf32>,
                              %e4_f32: !pallas.ref<256xf32>, %e5_f32: !pallas.ref<256xf32>,
                              %e4_f16: !pallas.ref<256xf16>,
                              %w_e4: !pallas.ref<4096xf8E4M3FN>, %w_e5: !pallas.ref<4096xf8E5M2>) {
  %a = pallas.load %e4[...] : !pallas.ref<256xf8E4M3FN> -> tensor<256xf8E4M3FN>
  %b = pallas.load %e5[...] : !pallas.ref<256xf8E5M2> -> tensor<256xf8E5M2>
  %a32 = arith.extf %a : tensor<256xf8E4M3FN> to tensor<256xf32>
  %b32 = arith.extf %b : tensor<256xf8E5M2> to tensor<256xf32>
  %a16 = arith.extf %a : tensor<256xf8E4M3FN> to tensor<256xf16>
  pallas.store %e4_f32[...], %a32 : !pallas.ref<256xf32>, tensor<256xf32>
  pallas.store %e5_f32[...], %b32 : !pallas.ref<256xf32>, tensor<256xf32>
  pallas.store %e4_f16[...], %a16 : !pallas.ref<256xf16>, tensor<256xf16>
  %x = pallas.load %w[...] : !pallas.ref<4096xf32> -> tensor<4096xf32>
  %x4 = arith.truncf %x : tensor<4096xf32> to tensor<4096xf8E4M3FN>
  %x5 = arith.truncf %x : tensor<4096xf32> to tensor<4096xf8E5M2>
  pallas.store %w_e4[...], %x4 : !pallas.ref<4096xf8E4M3FN>, tensor<4096xf8E4M3FN>
  pallas.store %w_e5[...], %x5 : !pallas.ref<4096xf8E5M2>, tensor<4096xf8E5M2>
  pallas.return
}
