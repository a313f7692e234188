pallas.kernel @k(%a: !pallas.ref<64x64xf32, any>) {
  %i = pallas.program_id 0 : i32
  %b = pallas.block %a[%i] [8, 8] : !pallas.ref<64x64xf32, any> -> !pallas.ref<8x8xf32>
  pallas.return
}
