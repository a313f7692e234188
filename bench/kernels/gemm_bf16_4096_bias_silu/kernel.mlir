// A 4096^3 bf16 GEMM with a fused epilogue: an in-kernel K loop over
// 128x256 tiles, then + bias and SiLU (h * sigmoid(h), jax.nn.silu) in
// f32, stored as bf16.
pallas.kernel @gemm_bias_silu(%x: !pallas.ref<128x4096xbf16>, %y: !pallas.ref<4096x256xbf16>,
                              %bias: !pallas.ref<1x256xbf16>, %z: !pallas.ref<128x256xbf16>) {
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
  %b16 = pallas.load %bias[...] : !pallas.ref<1x256xbf16> -> tensor<1x256xbf16>
  %b32 = arith.extf %b16 : tensor<1x256xbf16> to tensor<1x256xf32>
  %bb = pallas.broadcast %b32 : tensor<1x256xf32> -> tensor<128x256xf32>
  %h = arith.addf %acc, %bb : tensor<128x256xf32>
  // h / (1 + exp(-h))
  %one = arith.constant dense<1.0> : tensor<128x256xf32>
  %n = arith.negf %h : tensor<128x256xf32>
  %e = math.exp %n : tensor<128x256xf32>
  %d = arith.addf %e, %one : tensor<128x256xf32>
  %g = arith.divf %h, %d : tensor<128x256xf32>
  %r = arith.truncf %g : tensor<128x256xf32> to tensor<128x256xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
