pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xbf16, vmem>, %s: !pallas.dma_semaphore) {
  pallas.dma_wait %h[ds(8, 8)] -> %v[...], %s : !pallas.ref<32xf32, any> -> !pallas.ref<8xbf16, vmem>
  pallas.return
}
