func.func @f() {
  pallas.return
}
