// A scoped semaphore on the host: signalled by 3 and by the program id,
// waited on for 1, then read into the output (2 + i for program i).
pallas.kernel @scoped_semaphore(%o: !pallas.ref<1xi32>) {
  %i = pallas.program_id 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %v = pallas.run_scoped (%s: !pallas.semaphore) -> (i32) {
    pallas.semaphore_signal %s, %c3 : !pallas.semaphore
    pallas.semaphore_signal %s, %i : !pallas.semaphore
    pallas.semaphore_wait %s, %c1 : !pallas.semaphore
    %r = pallas.semaphore_read %s : !pallas.semaphore
    pallas.yield %r : i32
  }
  %t = pallas.broadcast %v : i32 -> tensor<1xi32>
  pallas.store %o[...], %t : !pallas.ref<1xi32>, tensor<1xi32>
  pallas.return
}
