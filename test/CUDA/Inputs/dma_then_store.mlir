// Copies rows of x into a scoped buffer, waits, then overwrites those rows
// of x before reading the buffer: the buffer holds the rows as they were.
pallas.kernel @dma_then_store(%x: !pallas.ref<64x128xf32, any>, %o: !pallas.ref<8x128xf32>) {
  %i = pallas.program_id 0 : i32
  %c8 = arith.constant 8 : i32
  %start = arith.muli %i, %c8 : i32
  pallas.run_scoped (%bx: !pallas.ref<8x128xf32, vmem>, %sx: !pallas.dma_semaphore) {
    pallas.async_copy %x[ds(%start, 8), :] -> %bx[...], %sx : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %x[ds(%start, 8), :] -> %bx[...], %sx : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    %zero = arith.constant dense<0.0> : tensor<8x128xf32>
    pallas.store %x[ds(%start, 8), :], %zero : !pallas.ref<64x128xf32, any>, tensor<8x128xf32>
    %a = pallas.load %bx[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    pallas.store %o[...], %a : !pallas.ref<8x128xf32>, tensor<8x128xf32>
    pallas.yield
  }
  pallas.return
}
