pallas.kernel @grid(%o: !pallas.ref<3xi32, smem>) {
  %i = pallas.program_id 0 : i32
  %k = pallas.program_id 2 : i32
  %n = pallas.num_programs 1 : i32
  pallas.return
}
