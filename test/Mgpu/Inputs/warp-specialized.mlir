// test/Python/Inputs/mgpu_cases.py:warp_specialized at 64x64 (f16), as pallasc_jax exports it:
// two Pallas threads (warpgroups), one copying, one multiplying and storing.
pallas.kernel @body(
    %x: !pallas.ref<64x64xf16, gmem>,
    %out: !pallas.ref<64x64xf16, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["i"], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">} {
  pallas.run_scoped (%0: !pallas.ref<2x64x64xf16, smem>, %1: !plgpu.barrier<2, arrivals = 1>) {
    %2 = plgpu.axis_index "wg" : i32
    %3 = plgpu.axis_index "i" : i32
    %4 = arith.constant 2 : i32
    %5 = arith.remsi %3, %4 : i32
    %6 = arith.constant 0 : i32
    %7 = arith.cmpi eq, %2, %6 : i32
    scf.if %7 {
      plgpu.set_max_registers 40 {decrease}
      %8 = pallas.ref_slice %0[%5, :, :] : !pallas.ref<2x64x64xf16, smem>, i32 -> !pallas.ref<64x64xf16, smem>
      plgpu.copy_gmem_to_smem %x -> %8, %1[%5] : !pallas.ref<64x64xf16, gmem>, !pallas.ref<64x64xf16, smem>, !plgpu.barrier<2, arrivals = 1>, i32
    }
    %9 = arith.constant 1 : i32
    %10 = arith.cmpi eq, %2, %9 : i32
    scf.if %10 {
      plgpu.set_max_registers 232 {increase}
      plgpu.barrier_wait %1[%5] : !plgpu.barrier<2, arrivals = 1>, i32
      pallas.run_scoped (%11: !pallas.ref<64x64xf32, regs>) {
        %12 = pallas.ref_slice %0[%5, :, :] : !pallas.ref<2x64x64xf16, smem>, i32 -> !pallas.ref<64x64xf16, smem>
        %13 = pallas.ref_slice %0[%5, :, :] : !pallas.ref<2x64x64xf16, smem>, i32 -> !pallas.ref<64x64xf16, smem>
        plgpu.wgmma %11, %12, %13 {transpose_b} : !pallas.ref<64x64xf32, regs>, !pallas.ref<64x64xf16, smem>, !pallas.ref<64x64xf16, smem>
        plgpu.wgmma_wait 0
        %14 = pallas.load %11[...] : !pallas.ref<64x64xf32, regs> -> tensor<64x64xf32>
        %15 = plgpu.layout_cast %14 {layout = "wgmma"} : tensor<64x64xf32>
        %16 = arith.truncf %15 : tensor<64x64xf32> to tensor<64x64xf16>
        pallas.store %0[%5, :, :], %16 : !pallas.ref<2x64x64xf16, smem>, i32, tensor<64x64xf16>
      }
      plgpu.commit_smem
      %17 = pallas.ref_slice %0[%5, :, :] : !pallas.ref<2x64x64xf16, smem>, i32 -> !pallas.ref<64x64xf16, smem>
      plgpu.copy_smem_to_gmem %17 -> %out {commit_group = false} : !pallas.ref<64x64xf16, smem>, !pallas.ref<64x64xf16, gmem>
      plgpu.commit_group
      plgpu.wait_smem_to_gmem 0 {read_only}
    }
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], []], plgpu.collective_axes = ["wg"]}
  pallas.return
}
