pallas.kernel @views(%h: !pallas.ref<64x128xf32, any>, %v: !pallas.ref<8x128xf32, vmem>,
                     %sem: !pallas.dma_semaphore) {
  %i = pallas.program_id 0 : i32
  %s0 = pallas.ref_slice %h[ds(%i, 8), :] : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, any>
  %s1 = pallas.ref_slice %h[%i, ds(0, 64, 2)] : !pallas.ref<64x128xf32, any>, i32 -> !pallas.ref<64xf32, any>
  %s2 = pallas.ref_slice %v[3, 4] : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<f32, vmem>

  pallas.async_copy %h[ds(%i, 8), :] -> %v[...], %sem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  pallas.dma_wait %h[ds(%i, 8), :] -> %v[...], %sem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  pallas.async_copy %v[%i, :] -> %h[5, ds(0, 128)], %sem {note = "x"} : !pallas.ref<8x128xf32, vmem>, i32 -> !pallas.ref<64x128xf32, any>
  pallas.dma_wait %v[0, :] -> %h[%i, :], %sem : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<64x128xf32, any>, i32

  pallas.run_scoped (%tmp: !pallas.ref<8x128xf32, vmem>, %s: !pallas.dma_semaphore) {
    pallas.async_copy %h[ds(0, 8), :] -> %tmp[...], %s : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %h[ds(0, 8), :] -> %tmp[...], %s : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
  }
  pallas.run_scoped () {
    pallas.barrier
    pallas.yield
  }
  %x:2 = pallas.run_scoped (%acc: !pallas.ref<8xf32, smem>, %ss: !pallas.semaphore) -> (f32, tensor<8xf32>) {
    %x0 = pallas.load %acc[0] : !pallas.ref<8xf32, smem> -> f32
    %x1 = pallas.load %acc[...] : !pallas.ref<8xf32, smem> -> tensor<8xf32>
    pallas.yield %x0, %x1 : f32, tensor<8xf32>
  }
  pallas.return
}
