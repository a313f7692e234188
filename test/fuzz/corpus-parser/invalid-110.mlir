pallas.kernel @k() {
  %i = pallas.program_id 0 : i32
  pallas.debug_print "{} and {}", %i : i32
  pallas.return
}
