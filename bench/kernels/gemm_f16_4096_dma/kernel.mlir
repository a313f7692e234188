// bench/kernels/gemm_f16_4096 written with manual DMA (examples/matmul_dma's
// formulation at 4096^3 f16): each K step copies x's 128x64 and y's 64x256
// block into run_scoped buffers; bench.py times it beside the BlockSpec
// kernel and cuBLAS.
pallas.kernel @gemm_f16_4096_dma(%x: !pallas.ref<4096x4096xf16, any>, %y: !pallas.ref<4096x4096xf16, any>,
                          %z: !pallas.ref<128x256xf16>) {
  %i = pallas.program_id 0 : i32
  %j = pallas.program_id 1 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %row = arith.muli %i, %c128 : i32
  %col = arith.muli %j, %c256 : i32
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %steps = arith.constant 64 : i32
  %acc = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_k = %acc0) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %next = pallas.run_scoped (%bx: !pallas.ref<128x64xf16, vmem>, %by: !pallas.ref<64x256xf16, vmem>,
                               %sx: !pallas.dma_semaphore, %sy: !pallas.dma_semaphore) -> (tensor<128x256xf32>) {
      pallas.async_copy %x[ds(%row, 128), ds(%off, 64)] -> %bx[...], %sx : !pallas.ref<4096x4096xf16, any> -> !pallas.ref<128x64xf16, vmem>
      pallas.async_copy %y[ds(%off, 64), ds(%col, 256)] -> %by[...], %sy : !pallas.ref<4096x4096xf16, any> -> !pallas.ref<64x256xf16, vmem>
      pallas.dma_wait %x[ds(%row, 128), ds(%off, 64)] -> %bx[...], %sx : !pallas.ref<4096x4096xf16, any> -> !pallas.ref<128x64xf16, vmem>
      pallas.dma_wait %y[ds(%off, 64), ds(%col, 256)] -> %by[...], %sy : !pallas.ref<4096x4096xf16, any> -> !pallas.ref<64x256xf16, vmem>
      %a = pallas.load %bx[...] : !pallas.ref<128x64xf16, vmem> -> tensor<128x64xf16>
      %b = pallas.load %by[...] : !pallas.ref<64x256xf16, vmem> -> tensor<64x256xf16>
      %d = pallas.dot %a, %b acc %acc_k : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      pallas.yield %d : tensor<128x256xf32>
    }
    scf.yield %next : tensor<128x256xf32>
  }
  %r = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  pallas.store %z[...], %r : !pallas.ref<128x256xf16>, tensor<128x256xf16>
  pallas.return
}
