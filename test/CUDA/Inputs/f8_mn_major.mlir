// B [K, N] (N-major): wgmma reads f8 operands K-major only.
pallas.kernel @f8_mn_major(%scales: !pallas.ref<2xf32, smem>,
                         %x: !pallas.ref<128x512xf8E4M3FN>, %y: !pallas.ref<512x256xf8E4M3FN>,
                         %z: !pallas.ref<128x256xbf16>) {
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %steps = arith.constant 4 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %k, %c128 : i32
    %a = pallas.load %x[:, ds(%off, 128)] : !pallas.ref<128x512xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %b = pallas.load %y[ds(%off, 128), :] : !pallas.ref<512x256xf8E4M3FN> -> tensor<128x256xf8E4M3FN>
    %p = pallas.dot %a, %b acc %acc_i : tensor<128x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  %sx = pallas.load %scales[%c0] : !pallas.ref<2xf32, smem>, i32 -> f32
  %sy = pallas.load %scales[%c1] : !pallas.ref<2xf32, smem>, i32 -> f32
  %s = arith.mulf %sx, %sy : f32
  %sb = pallas.broadcast %s : f32 -> tensor<128x256xf32>
  %scaled = arith.mulf %acc, %sb : tensor<128x256xf32>
  %r = arith.truncf %scaled : tensor<128x256xf32> to tensor<128x256xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
