// Manual DMA (pl.run_scoped + pltpu.make_async_copy): x and y stay where
// they are (memory space any); program i copies rows [8i, 8i + 8) of each
// into a scoped buffer, starting both copies before waiting for either, and
// writes x + 2y.
pallas.kernel @dma_rows(%x: !pallas.ref<64x128xf32, any>, %y: !pallas.ref<64x128xf32, any>,
                        %o: !pallas.ref<8x128xf32>) {
  %i = pallas.program_id 0 : i32
  %c8 = arith.constant 8 : i32
  %start = arith.muli %i, %c8 : i32
  pallas.run_scoped (%bx: !pallas.ref<8x128xf32, vmem>, %by: !pallas.ref<8x128xf32, vmem>,
                     %sx: !pallas.dma_semaphore, %sy: !pallas.dma_semaphore) {
    pallas.async_copy %x[ds(%start, 8), :] -> %bx[...], %sx : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.async_copy %y[ds(%start, 8), :] -> %by[...], %sy : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %x[ds(%start, 8), :] -> %bx[...], %sx : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %y[ds(%start, 8), :] -> %by[...], %sy : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    %a = pallas.load %bx[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    %b = pallas.load %by[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    %two = arith.constant dense<2.0> : tensor<8x128xf32>
    %b2 = arith.mulf %b, %two : tensor<8x128xf32>
    %r = arith.addf %a, %b2 : tensor<8x128xf32>
    pallas.store %o[...], %r : !pallas.ref<8x128xf32>, tensor<8x128xf32>
    pallas.yield
  }
  pallas.return
}
