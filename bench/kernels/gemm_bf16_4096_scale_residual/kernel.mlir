// A 4096^3 bf16 GEMM with a fused epilogue: an in-kernel K loop over
// 128x256 tiles, then alpha * acc + residual in f32 (alpha a scalar from
// SMEM, the residual a bf16 block of the output's shape), stored as bf16:
// a transformer block's output projection with its skip connection.
pallas.kernel @gemm_scale_residual(%alpha: !pallas.ref<1xf32, smem>, %x: !pallas.ref<128x4096xbf16>,
                                   %y: !pallas.ref<4096x256xbf16>, %res: !pallas.ref<128x256xbf16>,
                                   %z: !pallas.ref<128x256xbf16>) {
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %steps = arith.constant 64 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %a = pallas.load %x[:, ds(%off, 64)] : !pallas.ref<128x4096xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %y[ds(%off, 64), :] : !pallas.ref<4096x256xbf16> -> tensor<64x256xbf16>
    %p = pallas.dot %a, %b acc %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  %c0i = arith.constant 0 : i32
  %a = pallas.load %alpha[%c0i] : !pallas.ref<1xf32, smem>, i32 -> f32
  %ab = pallas.broadcast %a : f32 -> tensor<128x256xf32>
  %r16 = pallas.load %res[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %r32 = arith.extf %r16 : tensor<128x256xbf16> to tensor<128x256xf32>
  %sc = arith.mulf %acc, %ab : tensor<128x256xf32>
  %o = arith.addf %sc, %r32 : tensor<128x256xf32>
  %r = arith.truncf %o : tensor<128x256xf32> to tensor<128x256xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
