pallas.kernel @k() {
  %x = pallas.run_scoped (%a: !pallas.ref<8xf32, vmem>) -> (f32) {
  }
  pallas.return
}
