pallas.kernel @add(%x: !pallas.ref<256xf32, gmem>, %o: !pallas.ref<256xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["i"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "">} {
  %v = pallas.load %x[...] : !pallas.ref<256xf32, gmem> -> tensor<256xf32>
  pallas.store %o[...], %v : !pallas.ref<256xf32, gmem>, tensor<256xf32>
  pallas.return
}
