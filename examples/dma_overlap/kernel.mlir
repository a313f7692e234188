// Manual DMA with work in between (pl.run_scoped + make_async_copy): program
// i starts copying rows [8i, 8i + 8) of x and of y into scoped buffers,
// waits for x's copy only and computes exp(x) while y's is still in
// flight, then waits for y's and writes exp(x) * y. On the CUDA targets the
// copies are cp.async groups (pallas-async-copies).
pallas.kernel @dma_overlap(%x: !pallas.ref<64x128xf32, any>, %y: !pallas.ref<64x128xf32, any>,
                           %o: !pallas.ref<8x128xf32>) {
  %i = pallas.program_id 0 : i32
  %c8 = arith.constant 8 : i32
  %start = arith.muli %i, %c8 : i32
  pallas.run_scoped (%bx: !pallas.ref<8x128xf32, vmem>, %by: !pallas.ref<8x128xf32, vmem>,
                     %sx: !pallas.dma_semaphore, %sy: !pallas.dma_semaphore) {
    pallas.async_copy %x[ds(%start, 8), :] -> %bx[...], %sx : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.async_copy %y[ds(%start, 8), :] -> %by[...], %sy : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %x[ds(%start, 8), :] -> %bx[...], %sx : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    %a = pallas.load %bx[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    %e = math.exp %a : tensor<8x128xf32>
    pallas.dma_wait %y[ds(%start, 8), :] -> %by[...], %sy : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    %b = pallas.load %by[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    %r = arith.mulf %e, %b : tensor<8x128xf32>
    pallas.store %o[...], %r : !pallas.ref<8x128xf32>, tensor<8x128xf32>
    pallas.yield
  }
  pallas.return
}
