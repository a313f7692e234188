pallas.kernel @k() {
  %x = "pallas.run_scoped"() ({
    %c = arith.constant 1.0 : f32
  }) : () -> f32
  pallas.return
}
