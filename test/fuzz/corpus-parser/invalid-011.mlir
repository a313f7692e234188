pallas.kernel @k() {
  %x = pallas.run_scoped (%a: !pallas.ref<8xf32, vmem>) -> (f32) {
    %c = arith.constant 0 : i32
    pallas.yield %c : i32
  }
  pallas.return
}
