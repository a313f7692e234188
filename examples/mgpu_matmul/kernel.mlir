// A Pallas:MGPU kernel (plgpu.kernel), as pallasc_jax exports
// test/Python/Inputs/mgpu_cases.py:matmul: one 128x128 output tile per
// block of a 2x2 grid, K in steps of 64 copied into SMEM (TMA with a
// barrier), multiplied by wgmma into the accumulator, copied out through
// SMEM. On sm_90a pallasc keeps the kernel's own schedule (its copies,
// barrier and waits where they stand); the host, sm_80 and triton run its
// one warpgroup in order.
pallas.kernel @mm(
    %a: !pallas.ref<256x512xf16, gmem>,
    %b: !pallas.ref<512x256xf16, gmem>,
    %out: !pallas.ref<256x256xf16, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2, 2], grid_names = ["m", "n"], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">} {
  pallas.run_scoped (%0: !pallas.ref<128x64xf16, smem>, %1: !pallas.ref<64x128xf16, smem>, %2: !plgpu.barrier<1, arrivals = 2>, %3: !pallas.ref<128x128xf32, regs>, %4: !pallas.ref<128x128xf16, smem>) {
    %5 = plgpu.axis_index "m" : i32
    %6 = plgpu.axis_index "n" : i32
    %7 = arith.constant 0 : i32
    %8 = arith.constant 8 : i32
    %9 = arith.constant 1 : i32
    scf.for %10 = %7 to %8 step %9 : i32 {
      %11 = arith.constant 128 : i32
      %12 = arith.muli %5, %11 : i32
      %13 = arith.constant 64 : i32
      %14 = arith.muli %10, %13 : i32
      %15 = pallas.ref_slice %a[ds(%12, 128), ds(%14, 64)] : !pallas.ref<256x512xf16, gmem> -> !pallas.ref<128x64xf16, gmem>
      plgpu.copy_gmem_to_smem %15 -> %0, %2 : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<1, arrivals = 2>
      %16 = arith.muli %10, %13 : i32
      %17 = arith.muli %6, %11 : i32
      %18 = pallas.ref_slice %b[ds(%16, 64), ds(%17, 128)] : !pallas.ref<512x256xf16, gmem> -> !pallas.ref<64x128xf16, gmem>
      plgpu.copy_gmem_to_smem %18 -> %1, %2 : !pallas.ref<64x128xf16, gmem>, !pallas.ref<64x128xf16, smem>, !plgpu.barrier<1, arrivals = 2>
      plgpu.barrier_wait %2 : !plgpu.barrier<1, arrivals = 2>
      plgpu.wgmma %3, %0, %1 : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
      plgpu.wgmma_wait 0
    }
    plgpu.wgmma_wait 0
    %19 = pallas.load %3[...] : !pallas.ref<128x128xf32, regs> -> tensor<128x128xf32>
    %20 = arith.truncf %19 : tensor<128x128xf32> to tensor<128x128xf16>
    pallas.store %4[...], %20 : !pallas.ref<128x128xf16, smem>, tensor<128x128xf16>
    plgpu.commit_smem
    %21 = arith.constant 128 : i32
    %22 = arith.muli %5, %21 : i32
    %23 = arith.muli %6, %21 : i32
    %24 = pallas.ref_slice %out[ds(%22, 128), ds(%23, 128)] : !pallas.ref<256x256xf16, gmem> -> !pallas.ref<128x128xf16, gmem>
    plgpu.copy_smem_to_gmem %4 -> %24 : !pallas.ref<128x128xf16, smem>, !pallas.ref<128x128xf16, gmem>
    plgpu.wait_smem_to_gmem 0
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], [#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], [], [], [#plgpu.tiling<8, 64>, #plgpu.swizzle<128>]]}
  pallas.return
}
