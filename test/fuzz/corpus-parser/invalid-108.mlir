pallas.kernel @k() {
  %i = pallas.program_id 0 : i32
  %h = pallas.multiple_of %i, 0 : i32
  pallas.return
}
