pallas.kernel @misc(%sem: !pallas.semaphore, %dsem: !pallas.dma_semaphore) {
  %i = pallas.program_id 0 : i32
  %t = pallas.iota 0 : tensor<8xi32>
  %ix = arith.index_cast %i : i32 to index
  %m0 = pallas.multiple_of %i, 8 : i32
  %m1 = pallas.multiple_of %ix, 16 : index
  %m2 = pallas.max_contiguous %t, 8 : tensor<8xi32>

  pallas.semaphore_signal %sem, %i : !pallas.semaphore
  pallas.semaphore_wait %sem, %i : !pallas.semaphore
  pallas.semaphore_signal %dsem, %i : !pallas.dma_semaphore
  pallas.semaphore_wait %dsem, %i : !pallas.dma_semaphore
  %v0 = pallas.semaphore_read %sem : !pallas.semaphore
  %v1 = pallas.semaphore_read %dsem : !pallas.dma_semaphore

  pallas.barrier
  pallas.debug_print "hello"
  pallas.debug_print "i = {}, t = {}", %i, %t : i32, tensor<8xi32>
  pallas.debug_print "values:", %i : i32
  pallas.return
}
