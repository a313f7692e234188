pallas.kernel @k(%h: !pallas.ref<32xf32, any>, %v: !pallas.ref<8xf32, vmem>, %s: !pallas.dma_semaphore) {
  %t = pallas.iota 0 : tensor<8xi32>
  pallas.async_copy %h[%t] -> %v[...], %s : !pallas.ref<32xf32, any>, tensor<8xi32> -> !pallas.ref<8xf32, vmem>
  pallas.return
}
