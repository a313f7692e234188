// A matmul whose shapes are not multiples of its blocks: M = N = 200 in
// 64-row and 64-column blocks (the last ones overhang), K = 136 walked in
// steps of 32 inside the kernel (the last step reads 24 columns past the
// end, which read as zero). bf16 inputs, f32 accumulation.
pallas.kernel @matmul_edges(%x: !pallas.ref<64x160xbf16>, %y: !pallas.ref<160x64xbf16>,
                            %z: !pallas.ref<64x64xf32>) {
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %steps = arith.constant 5 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
    %off = arith.muli %k, %c32 : i32
    %a = pallas.load %x[:, ds(%off, 32)] : !pallas.ref<64x160xbf16> -> tensor<64x32xbf16>
    %b = pallas.load %y[ds(%off, 32), :] : !pallas.ref<160x64xbf16> -> tensor<32x64xbf16>
    %p = pallas.dot %a, %b acc %acc_i : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %p : tensor<64x64xf32>
  }
  pallas.store %z[...], %acc : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}
