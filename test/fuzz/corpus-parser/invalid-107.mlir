pallas.kernel @k() {
  %v = arith.constant 1.0 : f32
  %h = pallas.max_contiguous %v, 8 : f32
  pallas.return
}
