pallas.kernel @k(%h: !pallas.ref<64xf32>) {
  %s = pallas.ref_slice %h[ds(9223372036854775807, 2)] : !pallas.ref<64xf32> -> !pallas.ref<2xf32>
  %t = pallas.load %h[ds(9223372036854775800, 3, 4)] : !pallas.ref<64xf32> -> tensor<3xf32>
  %i = pallas.program_id 0 : i32
  %u = pallas.load %h[ds(%i, 2, 9223372036854775807)] : !pallas.ref<64xf32> -> tensor<2xf32>
  pallas.return
}
