// bench/kernels/gemm_f16_4096 with M and N symbolic: one artifact for every
// M x 4096 by 4096 x N f16 GEMM, in 128x256 output tiles (bench.py compares
// it with the static kernel at 4096^3).
pallas.kernel @gemm_f16_4096_symbolic(%x: !pallas.ref<128x4096xf16>, %y: !pallas.ref<4096x256xf16>,
                  %z: !pallas.ref<128x256xf16>) {
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %steps = arith.constant 64 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %a = pallas.load %x[:, ds(%off, 64)] : !pallas.ref<128x4096xf16> -> tensor<128x64xf16>
    %b = pallas.load %y[ds(%off, 64), :] : !pallas.ref<4096x256xf16> -> tensor<64x256xf16>
    %p = pallas.dot %a, %b acc %acc_i : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  %r = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xf16>, tensor<128x256xf16>
  pallas.return
}
