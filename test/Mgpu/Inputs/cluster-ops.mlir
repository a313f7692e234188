// test/Python/Inputs/mgpu_cases.py:cluster_ops, as pallasc_jax exports it (a cluster of 2).
pallas.kernel @body(
    %x: !pallas.ref<64x64xf16, gmem>,
    %out: !pallas.ref<64x64xf16, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["g"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "">} {
  pallas.run_scoped (%0: !pallas.ref<64x64xf16, smem>, %1: !plgpu.barrier<1, arrivals = 1>) {
    plgpu.copy_gmem_to_smem %x -> %0, %1 {collective_axes = ["c"]} : !pallas.ref<64x64xf16, gmem>, !pallas.ref<64x64xf16, smem>, !plgpu.barrier<1, arrivals = 1>
    %2 = plgpu.barrier_test %1 : !plgpu.barrier<1, arrivals = 1> -> i1
    %3 = plgpu.axis_index "c" : i32
    %4 = arith.constant 2 : i32
    %5 = arith.addi %4, %3 : i32
    %6 = arith.constant dense<0.0> : tensor<64x64xf32>
    %7 = pallas.run_scoped (%8: !pallas.ref<64x64xf32, regs>) -> (tensor<64x64xf32>) {
      pallas.store %8[...], %6 : !pallas.ref<64x64xf32, regs>, tensor<64x64xf32>
      %9 = pallas.load %0[...] : !pallas.ref<64x64xf16, smem> -> tensor<64x64xf16>
      plgpu.wgmma %8, %9, %0 {transpose_b} : !pallas.ref<64x64xf32, regs>, tensor<64x64xf16>, !pallas.ref<64x64xf16, smem>
      plgpu.wgmma_wait 0
      %10 = pallas.load %8[...] : !pallas.ref<64x64xf32, regs> -> tensor<64x64xf32>
      pallas.yield %10 : tensor<64x64xf32>
    }
    %11 = arith.sitofp %5 : i32 to f32
    %12 = pallas.broadcast %11 : f32 -> tensor<64x64xf32>
    %13 = arith.addf %7, %12 : tensor<64x64xf32>
    %14 = arith.select %2, %7, %13 : tensor<64x64xf32>
    %15 = arith.truncf %14 : tensor<64x64xf32> to tensor<64x64xf16>
    pallas.store %0[...], %15 : !pallas.ref<64x64xf16, smem>, tensor<64x64xf16>
    plgpu.copy_smem_to_gmem %0 -> %out {reduction = "add"} : !pallas.ref<64x64xf16, smem>, !pallas.ref<64x64xf16, gmem>
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], []]}
  pallas.return
}
