pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = arith.constant 0 : index
  %b = pallas.block %a[%i, %i] [8, 8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8x8xf32>
  pallas.return
}
