pallas.kernel @k() {
  %c = arith.constant 1 : i32
  %t = pallas.broadcast %c : i32 -> tensor<4xi64>
  pallas.return
}
