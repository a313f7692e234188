pallas.kernel @k() {
  %i = pallas.program_id -1 : i32
  pallas.return
}
