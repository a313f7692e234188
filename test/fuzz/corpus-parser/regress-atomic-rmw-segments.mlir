pallas.kernel @k(%r: !pallas.ref<8xi32>) {
  %v = arith.constant 1 : i32
  %o = "pallas.atomic_rmw"(%r, %v) <{kind = 5 : i32, indexers = array<i64: 1, 0, 0, 1>, operandSegmentSizes = array<i32: 1,1, 0  ,0>}> :(!pallas.ref<8xi32>, i32) -> i64
  pallas.return}
