pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = pallas.program_id 0 : i32
  %v = pallas.load %r[0, ds(%i, 4, 0)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  pallas.return
}
