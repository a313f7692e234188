// A 8192x8192x1024 bf16 GEMM in 128x256 output tiles: each program walks K in
// steps of 64 with an f32 accumulator (issue floor shapes; bench.py).
pallas.kernel @gemm_bf16_8192x8192x1024(%x: !pallas.ref<128x1024xbf16>, %y: !pallas.ref<1024x256xbf16>,
                  %z: !pallas.ref<128x256xbf16>) {
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %steps = arith.constant 16 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %a = pallas.load %x[:, ds(%off, 64)] : !pallas.ref<128x1024xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %y[ds(%off, 64), :] : !pallas.ref<1024x256xbf16> -> tensor<64x256xbf16>
    %p = pallas.dot %a, %b acc %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.yield %p : tensor<128x256xf32>
  }
  %r = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
