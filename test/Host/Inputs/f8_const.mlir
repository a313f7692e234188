// f8 constants: 1.5 in f8E4M3FN is 0x3c, -3.0 in f8E5M2 is 0xc2.
pallas.kernel @f8_const(%o4: !pallas.ref<8xf8E4M3FN>, %o5: !pallas.ref<8xf8E5M2>) {
  %a = arith.constant dense<1.5> : tensor<8xf8E4M3FN>
  %b = arith.constant dense<-3.0> : tensor<8xf8E5M2>
  pallas.store %o4[...], %a : !pallas.ref<8xf8E4M3FN>, tensor<8xf8E4M3FN>
  pallas.store %o5[...], %b : !pallas.ref<8xf8E5M2>, tensor<8xf8E5M2>
  pallas.return
}
