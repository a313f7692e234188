// A 8192^3 f16 GEMM as the Pallas quickstart writes it: one dot of whole
// blocks per program (x_ref[...] @ y_ref[...]), K = 8192 in one statement.
pallas.kernel @gemm_whole_k(%x: !pallas.ref<128x8192xf16>, %y: !pallas.ref<8192x256xf16>,
                            %z: !pallas.ref<128x256xf16>) {
  %a = pallas.load %x[...] : !pallas.ref<128x8192xf16> -> tensor<128x8192xf16>
  %b = pallas.load %y[...] : !pallas.ref<8192x256xf16> -> tensor<8192x256xf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %d = pallas.dot %a, %b acc %zero : tensor<128x8192xf16>, tensor<8192x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  %t = arith.truncf %d : tensor<128x256xf32> to tensor<128x256xf16>
  pallas.store %z[...], %t : !pallas.ref<128x256xf16>, tensor<128x256xf16>
  pallas.return
}
