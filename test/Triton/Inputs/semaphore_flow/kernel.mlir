// A scoped semaphore through a loop and a branch (on the triton and CUDA
// targets a counter the scf.for and scf.if carry): program i signals it by
// each x[i, k], reads n, waits for 1 in odd programs, reads m, and writes
// [n, m, i, n + m].
pallas.kernel @semaphore_flow(%x: !pallas.ref<4xi32>, %o: !pallas.ref<4xi32>) {
  %i = pallas.program_id 0 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %r:2 = pallas.run_scoped (%s: !pallas.semaphore) -> (i32, i32) {
    scf.for %k = %c0 to %c4 step %c1 : i32 {
      %v = pallas.load %x[%k] : !pallas.ref<4xi32>, i32 -> i32
      pallas.semaphore_signal %s, %v : !pallas.semaphore
    }
    %n = pallas.semaphore_read %s : !pallas.semaphore
    %parity = arith.remsi %i, %c2 : i32
    %odd = arith.cmpi eq, %parity, %c1 : i32
    scf.if %odd {
      pallas.semaphore_wait %s, %c1 : !pallas.semaphore
    }
    %m = pallas.semaphore_read %s : !pallas.semaphore
    pallas.yield %n, %m : i32, i32
  }
  %sum = arith.addi %r#0, %r#1 : i32
  pallas.store %o[0], %r#0 : !pallas.ref<4xi32>, i32
  pallas.store %o[1], %r#1 : !pallas.ref<4xi32>, i32
  pallas.store %o[2], %i : !pallas.ref<4xi32>, i32
  pallas.store %o[3], %sum : !pallas.ref<4xi32>, i32
  pallas.return
}
