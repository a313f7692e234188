pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  %o = "pallas.atomic_cas"(%r, %v, %v) <{indexers = array<i64: 1, 0, 0, 1>}> : (!pallas.ref<8xi32>, i32, i32) -> i64
  pallas.return
}
