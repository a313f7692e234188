pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xf32, vmem>, %s: !pallas.dma_semaphore) {
  pallas.async_copy %h[ds(0, 16)] -> %v[...], %s : !pallas.ref<32xf32, any> -> !pallas.ref<8xf32, vmem>
  pallas.return
}
