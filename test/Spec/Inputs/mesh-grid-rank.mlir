pallas.kernel @two(%x: !pallas.ref<128xf32, gmem>, %o: !pallas.ref<128xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">} {
  %v = pallas.load %x[...] : !pallas.ref<128xf32, gmem> -> tensor<128xf32>
  pallas.store %o[...], %v : !pallas.ref<128xf32, gmem>, tensor<128xf32>
  pallas.return
}
