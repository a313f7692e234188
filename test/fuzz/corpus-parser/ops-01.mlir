pallas.kernel @types(%a: !pallas.ref<4x8xf32>, %b: !pallas.ref<8x128xbf16, vmem>,
                     %c: !pallas.ref<16xi32, smem>, %d: !pallas.ref<64x128xf16, any>,
                     %e: !pallas.ref<32xi64, gmem>, %f: !pallas.ref<f64>,
                     %g: !pallas.ref<2x4xf8E4M3FN>, %h: !pallas.ref<8xf8E5M2, vmem>,
                     %i: !pallas.ref<8xi1>, %j: !pallas.ref<8xi8>, %k: !pallas.ref<8xi16>,
                     %l: !pallas.ref<2x!pallas.dma_semaphore, smem>,
                     %m: !pallas.semaphore, %n: !pallas.dma_semaphore) {
  pallas.return
}

pallas.kernel private @attributes(%a: !pallas.ref<4xf32>) attributes {note = "x"} {
  pallas.return {note = "y"}
}

func.func @index_map(%x: i32) -> i32 {
  return %x : i32
}
pallas.kernel @no_args() {
  pallas.return
}
