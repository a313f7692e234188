pallas.kernel @k(%r: !pallas.ref<4x8xf32>, %d: !pallas.ref<4xf32>, %s: !pallas.dma_semaphore) {
  "pallas.async_copy"(%r, %d, %s) <{src_indexers = array<i64: 5>, dst_indexers = array<i64>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>}> : (!pallas.ref<4x8xf32>, !pallas.ref<4xf32>, !pallas.dma_semaphore) -> ()
  pallas.return
}
