// examples/matmul_dma's GEMM with BlockSpecs (x's row block, y's column
// block, both staged by the compiler) instead of manual DMA.
pallas.kernel @matmul_dma(%x: !pallas.ref<128x512xbf16>, %y: !pallas.ref<512x256xbf16>,
                          %z: !pallas.ref<128x256xbf16>) {
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %steps = arith.constant 8 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_k = %acc0) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %a = pallas.load %x[:, ds(%off, 64)] : !pallas.ref<128x512xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %y[ds(%off, 64), :] : !pallas.ref<512x256xbf16> -> tensor<64x256xbf16>
    %d = pallas.dot %a, %b acc %acc_k : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %r = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
