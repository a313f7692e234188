pallas.kernel @k() {
  pallas.run_scoped (%a: !pallas.ref<8xf32, vmem>, %b: i32) {
  }
  pallas.return
}
