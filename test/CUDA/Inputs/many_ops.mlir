// 40 elementwise ops on a 128x512 f32 block written back into its input
// ref: each tensor 512 elements per thread (4 warps), 20000 and more in all.
pallas.kernel @many_ops(%x: !pallas.ref<128x512xf32>, %o: !pallas.ref<128x512xf32>) {
  %a0 = pallas.load %x[...] : !pallas.ref<128x512xf32> -> tensor<128x512xf32>
  %a1 = arith.mulf %a0, %a0 : tensor<128x512xf32>
  %a2 = arith.addf %a1, %a1 : tensor<128x512xf32>
  %a3 = arith.mulf %a2, %a2 : tensor<128x512xf32>
  %a4 = arith.addf %a3, %a3 : tensor<128x512xf32>
  %a5 = arith.mulf %a4, %a4 : tensor<128x512xf32>
  %a6 = arith.addf %a5, %a5 : tensor<128x512xf32>
  %a7 = arith.mulf %a6, %a6 : tensor<128x512xf32>
  %a8 = arith.addf %a7, %a7 : tensor<128x512xf32>
  %a9 = arith.mulf %a8, %a8 : tensor<128x512xf32>
  %a10 = arith.addf %a9, %a9 : tensor<128x512xf32>
  %a11 = arith.mulf %a10, %a10 : tensor<128x512xf32>
  %a12 = arith.addf %a11, %a11 : tensor<128x512xf32>
  %a13 = arith.mulf %a12, %a12 : tensor<128x512xf32>
  %a14 = arith.addf %a13, %a13 : tensor<128x512xf32>
  %a15 = arith.mulf %a14, %a14 : tensor<128x512xf32>
  %a16 = arith.addf %a15, %a15 : tensor<128x512xf32>
  %a17 = arith.mulf %a16, %a16 : tensor<128x512xf32>
  %a18 = arith.addf %a17, %a17 : tensor<128x512xf32>
  %a19 = arith.mulf %a18, %a18 : tensor<128x512xf32>
  %a20 = arith.addf %a19, %a19 : tensor<128x512xf32>
  %a21 = arith.mulf %a20, %a20 : tensor<128x512xf32>
  %a22 = arith.addf %a21, %a21 : tensor<128x512xf32>
  %a23 = arith.mulf %a22, %a22 : tensor<128x512xf32>
  %a24 = arith.addf %a23, %a23 : tensor<128x512xf32>
  %a25 = arith.mulf %a24, %a24 : tensor<128x512xf32>
  %a26 = arith.addf %a25, %a25 : tensor<128x512xf32>
  %a27 = arith.mulf %a26, %a26 : tensor<128x512xf32>
  %a28 = arith.addf %a27, %a27 : tensor<128x512xf32>
  %a29 = arith.mulf %a28, %a28 : tensor<128x512xf32>
  %a30 = arith.addf %a29, %a29 : tensor<128x512xf32>
  %a31 = arith.mulf %a30, %a30 : tensor<128x512xf32>
  %a32 = arith.addf %a31, %a31 : tensor<128x512xf32>
  %a33 = arith.mulf %a32, %a32 : tensor<128x512xf32>
  %a34 = arith.addf %a33, %a33 : tensor<128x512xf32>
  %a35 = arith.mulf %a34, %a34 : tensor<128x512xf32>
  %a36 = arith.addf %a35, %a35 : tensor<128x512xf32>
  %a37 = arith.mulf %a36, %a36 : tensor<128x512xf32>
  %a38 = arith.addf %a37, %a37 : tensor<128x512xf32>
  %a39 = arith.mulf %a38, %a38 : tensor<128x512xf32>
  pallas.store %x[...], %a39 : !pallas.ref<128x512xf32>, tensor<128x512xf32>
  pallas.return
}
