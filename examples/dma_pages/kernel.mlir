// Manual DMA into and out of parts of scoped buffers (a paged gather, as
// paged attention reads its KV cache): program i copies the four 8-row
// pages pages[i, 0..3] of x (scalar prefetch) into consecutive rows of one
// buffer, all four copies in flight on one DMA semaphore before it waits for
// them, reads the buffer whole, computes 2x + 1, and copies the result out
// page by page into rows [32i, 32i + 32) of o in reverse page order.
pallas.kernel @dma_pages(%pages: !pallas.ref<4x4xi32, smem>, %x: !pallas.ref<16x8x128xf32, any>,
                         %o: !pallas.ref<128x128xf32, any>) {
  %i = pallas.program_id 0 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %base = arith.muli %i, %c32 : i32
  pallas.run_scoped (%in: !pallas.ref<32x128xf32, vmem>, %out: !pallas.ref<32x128xf32, vmem>,
                     %s: !pallas.dma_semaphore) {
    scf.for %p = %c0 to %c4 step %c1 : i32 {
      %page = pallas.load %pages[%i, %p] : !pallas.ref<4x4xi32, smem>, i32, i32 -> i32
      %row = arith.muli %p, %c8 : i32
      pallas.async_copy %x[%page, :, :] -> %in[ds(%row, 8), :], %s : !pallas.ref<16x8x128xf32, any>, i32 -> !pallas.ref<32x128xf32, vmem>
    }
    scf.for %p = %c0 to %c4 step %c1 : i32 {
      %page = pallas.load %pages[%i, %p] : !pallas.ref<4x4xi32, smem>, i32, i32 -> i32
      %row = arith.muli %p, %c8 : i32
      pallas.dma_wait %x[%page, :, :] -> %in[ds(%row, 8), :], %s : !pallas.ref<16x8x128xf32, any>, i32 -> !pallas.ref<32x128xf32, vmem>
    }
    %v = pallas.load %in[...] : !pallas.ref<32x128xf32, vmem> -> tensor<32x128xf32>
    %two = arith.constant dense<2.0> : tensor<32x128xf32>
    %one = arith.constant dense<1.0> : tensor<32x128xf32>
    %t = arith.mulf %v, %two : tensor<32x128xf32>
    %r = arith.addf %t, %one : tensor<32x128xf32>
    pallas.store %out[...], %r : !pallas.ref<32x128xf32, vmem>, tensor<32x128xf32>
    scf.for %p = %c0 to %c4 step %c1 : i32 {
      %row = arith.muli %p, %c8 : i32
      %q = arith.subi %c3, %p : i32
      %qrow = arith.muli %q, %c8 : i32
      %dst = arith.addi %base, %qrow : i32
      pallas.async_copy %out[ds(%row, 8), :] -> %o[ds(%dst, 8), :], %s : !pallas.ref<32x128xf32, vmem> -> !pallas.ref<128x128xf32, any>
      pallas.dma_wait %out[ds(%row, 8), :] -> %o[ds(%dst, 8), :], %s : !pallas.ref<32x128xf32, vmem> -> !pallas.ref<128x128xf32, any>
    }
    pallas.yield
  }
  pallas.return
}
