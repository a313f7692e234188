// Double buffering by hand (the manual pipelining pattern of Pallas's TPU
// guide): program i streams the six 8x128 chunks of x[i] through a
// two-slot scoped buffer. Chunk k + 1 is copied into slot (k + 1) % 2 while
// chunk k, in slot k % 2, is multiplied by k + 1 and added up; one DMA
// semaphore, with one copy in flight whenever the program waits.
pallas.kernel @dma_double_buffer(%x: !pallas.ref<4x6x8x128xf32, any>, %o: !pallas.ref<8x128xf32>) {
  %i = pallas.program_id 0 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c6 = arith.constant 6 : i32
  %zero = arith.constant dense<0.0> : tensor<8x128xf32>
  %sum = pallas.run_scoped (%buf: !pallas.ref<2x8x128xf32, vmem>, %sem: !pallas.dma_semaphore) -> (tensor<8x128xf32>) {
    pallas.async_copy %x[%i, 0, :, :] -> %buf[0, :, :], %sem : !pallas.ref<4x6x8x128xf32, any>, i32 -> !pallas.ref<2x8x128xf32, vmem>
    %acc = scf.for %k = %c0 to %c6 step %c1 iter_args(%a = %zero) -> (tensor<8x128xf32>) : i32 {
      %slot = arith.remsi %k, %c2 : i32
      pallas.dma_wait %x[%i, %k, :, :] -> %buf[%slot, :, :], %sem : !pallas.ref<4x6x8x128xf32, any>, i32, i32 -> !pallas.ref<2x8x128xf32, vmem>, i32
      %next = arith.addi %k, %c1 : i32
      %more = arith.cmpi slt, %next, %c6 : i32
      scf.if %more {
        %other = arith.subi %c1, %slot : i32
        pallas.async_copy %x[%i, %next, :, :] -> %buf[%other, :, :], %sem : !pallas.ref<4x6x8x128xf32, any>, i32, i32 -> !pallas.ref<2x8x128xf32, vmem>, i32
      }
      %v = pallas.load %buf[%slot, :, :] : !pallas.ref<2x8x128xf32, vmem>, i32 -> tensor<8x128xf32>
      %w = arith.sitofp %next : i32 to f32
      %ws = pallas.broadcast %w : f32 -> tensor<8x128xf32>
      %t = arith.mulf %v, %ws : tensor<8x128xf32>
      %s = arith.addf %a, %t : tensor<8x128xf32>
      scf.yield %s : tensor<8x128xf32>
    }
    pallas.yield %acc : tensor<8x128xf32>
  }
  pallas.store %o[...], %sum : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  pallas.return
}
