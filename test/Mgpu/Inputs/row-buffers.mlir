// Exported from JAX by pallasc_jax: mgpu_cases.row_buffers (test/Python/Inputs)
pallas.kernel @body(
    %x: !pallas.ref<2x128xf32, gmem>,
    %out: !pallas.ref<2x128xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">} {
  pallas.run_scoped (%0: !pallas.ref<2x128xf32, smem>, %1: !pallas.ref<2x128xf32, smem>, %2: !plgpu.barrier<2, arrivals = 1>) {
    %3 = plgpu.axis_index "wg" : i32
    %4 = pallas.ref_slice %x[%3, :] : !pallas.ref<2x128xf32, gmem>, i32 -> !pallas.ref<128xf32, gmem>
    %5 = pallas.ref_slice %0[%3, :] : !pallas.ref<2x128xf32, smem>, i32 -> !pallas.ref<128xf32, smem>
    plgpu.copy_gmem_to_smem %4 -> %5, %2[%3] : !pallas.ref<128xf32, gmem>, !pallas.ref<128xf32, smem>, !plgpu.barrier<2, arrivals = 1>, i32
    plgpu.barrier_wait %2[%3] : !plgpu.barrier<2, arrivals = 1>, i32
    %6 = pallas.load %0[%3, :] : !pallas.ref<2x128xf32, smem>, i32 -> tensor<128xf32>
    %7 = arith.constant dense<2.0> : tensor<128xf32>
    %8 = arith.mulf %6, %7 : tensor<128xf32>
    %9 = arith.constant dense<1.0> : tensor<128xf32>
    %10 = arith.addf %8, %9 : tensor<128xf32>
    pallas.store %1[%3, :], %10 : !pallas.ref<2x128xf32, smem>, i32, tensor<128xf32>
    plgpu.commit_smem
    %11 = pallas.ref_slice %1[%3, :] : !pallas.ref<2x128xf32, smem>, i32 -> !pallas.ref<128xf32, smem>
    %12 = pallas.ref_slice %out[%3, :] : !pallas.ref<2x128xf32, gmem>, i32 -> !pallas.ref<128xf32, gmem>
    plgpu.copy_smem_to_gmem %11 -> %12 : !pallas.ref<128xf32, smem>, !pallas.ref<128xf32, gmem>
    plgpu.wait_smem_to_gmem 0
  } {plgpu.collective_axes = ["wg"]}
  pallas.return
}
