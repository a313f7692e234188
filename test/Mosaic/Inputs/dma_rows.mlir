// Manual DMA: x stays in HBM (memory space any); program i copies rows
// [8i, 8i + 8) into a scoped VMEM buffer, waits, and writes them doubled.
pallas.kernel @dma_rows(%x: !pallas.ref<64x128xf32, any>, %o: !pallas.ref<8x128xf32>) {
  %i = pallas.program_id 0 : i32
  %c8 = arith.constant 8 : i32
  %start = arith.muli %i, %c8 : i32
  pallas.run_scoped (%buf: !pallas.ref<8x128xf32, vmem>, %sem: !pallas.dma_semaphore) {
    pallas.async_copy %x[ds(%start, 8), :] -> %buf[...], %sem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %x[ds(%start, 8), :] -> %buf[...], %sem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    %v = pallas.load %buf[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    %two = arith.constant dense<2.0> : tensor<8x128xf32>
    %r = arith.mulf %v, %two : tensor<8x128xf32>
    pallas.store %o[...], %r : !pallas.ref<8x128xf32>, tensor<8x128xf32>
    pallas.yield
  }
  pallas.return
}
