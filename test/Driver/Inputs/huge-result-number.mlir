// A use of result #2147483648 of a three-result loop (found by the
// whole-driver fuzzer: MLIR's parser sized a table by that number).
pallas.kernel @add_one(%x: !pallas.ref<32xi32>, %o: !pallas.ref<32xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:3 = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %c0, %b = %c0, %c = %c0) -> (i32, i32, i32) : i32 {
    scf.yield %a, %b, %c : i32, i32, i32
  }
  %v = pallas.load %x[...] : !pallas.ref<32xi32> -> tensor<32xi32>
  %s = pallas.broadcast %r#2147483648 : i32 -> tensor<32xi32>
  %w = arith.addi %v, %s : tensor<32xi32>
  pallas.store %o[...], %w : !pallas.ref<32xi32>, tensor<32xi32>
  pallas.return
}
