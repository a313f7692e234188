pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %c = arith.constant 1 : i64
  %v = arith.constant 1 : i32
  %o = "pallas.atomic_cas"(%r, %c, %v) <{indexers = array<i64: 1, 0, 0, 1>}> : (!pallas.ref<8xi32>, i64, i32) -> i32
  pallas.return
}
