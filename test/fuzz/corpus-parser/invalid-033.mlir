pallas.kernel @k(%r: !pallas.ref<4x8xf32>) {
  %i = pallas.program_id 0 : i32
  %v = pallas.load %r[0, ds(%i, 5, 2)] : !pallas.ref<4x8xf32> -> tensor<5xf32>
  pallas.return
}
