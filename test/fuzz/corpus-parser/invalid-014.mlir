pallas.kernel @k() {
  pallas.yield
}
