// A ticket counter: program i swaps lock[i] from 0 to i + 1 once.
pallas.kernel @lock(%l: !pallas.ref<8xi32>) {
  %i = pallas.program_id 0 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = arith.addi %i, %c1 : i32
  %old = pallas.atomic_cas %l[%i], %c0, %v : !pallas.ref<8xi32>, i32, i32
  pallas.return
}
