// test/Python/Inputs/mgpu_cases.py:pipelined_matmul at 512x512x512 (f16), as pallasc_jax exports it:
// emit_pipeline over K, three slots, one wgmma left in flight (delay_release = 1).
pallas.kernel @mm(
    %a: !pallas.ref<512x512xf16, gmem>,
    %b: !pallas.ref<512x512xf16, gmem>,
    %out: !pallas.ref<512x512xf16, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [4, 4], grid_names = ["m", "n"], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">} {
  pallas.run_scoped (%0: !pallas.ref<128x128xf16, smem>, %1: !pallas.ref<128x128xf32, regs>) {
    %2 = plgpu.axis_index "m" : i32
    %3 = plgpu.axis_index "n" : i32
    pallas.run_scoped (%4: !plgpu.barrier<3, arrivals = 2>, %5: !pallas.ref<3x128x64xf16, smem>, %6: !pallas.ref<3x64x128xf16, smem>) {
      %7 = arith.constant 0 : i32
      %8 = arith.constant 3 : i32
      %9 = arith.constant 1 : i32
      %10 = scf.for %11 = %7 to %8 step %9 iter_args(%12 = %7) -> (i32) : i32 {
        %13 = arith.constant 128 : i32
        %14 = arith.muli %2, %13 : i32
        %15 = arith.constant 64 : i32
        %16 = arith.muli %12, %15 : i32
        %17 = pallas.ref_slice %a[ds(%14, 128), ds(%16, 64)] : !pallas.ref<512x512xf16, gmem> -> !pallas.ref<128x64xf16, gmem>
        %18 = pallas.ref_slice %5[%11, :, :] : !pallas.ref<3x128x64xf16, smem>, i32 -> !pallas.ref<128x64xf16, smem>
        plgpu.copy_gmem_to_smem %17 -> %18, %4[%11] : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<3, arrivals = 2>, i32
        %19 = arith.muli %12, %15 : i32
        %20 = arith.muli %3, %13 : i32
        %21 = pallas.ref_slice %b[ds(%19, 64), ds(%20, 128)] : !pallas.ref<512x512xf16, gmem> -> !pallas.ref<64x128xf16, gmem>
        %22 = pallas.ref_slice %6[%11, :, :] : !pallas.ref<3x64x128xf16, smem>, i32 -> !pallas.ref<64x128xf16, smem>
        plgpu.copy_gmem_to_smem %21 -> %22, %4[%11] : !pallas.ref<64x128xf16, gmem>, !pallas.ref<64x128xf16, smem>, !plgpu.barrier<3, arrivals = 2>, i32
        %23 = arith.addi %12, %9 : i32
        %24 = arith.constant true
        %25 = arith.select %24, %23, %12 : i32
        %26 = arith.constant 8 : i32
        %27 = arith.cmpi eq, %25, %26 : i32
        %28 = arith.select %27, %7, %25 : i32
        scf.yield %28 : i32
      }
      %29 = arith.addi %7, %9 : i32
      %30 = arith.constant true
      %31 = arith.select %30, %29, %7 : i32
      %32 = arith.constant 8 : i32
      %33 = arith.cmpi eq, %31, %32 : i32
      %34 = arith.select %33, %7, %31 : i32
      %35 = arith.addi %34, %9 : i32
      %36 = arith.select %30, %35, %34 : i32
      %37 = arith.cmpi eq, %36, %32 : i32
      %38 = arith.select %37, %7, %36 : i32
      %39:2 = scf.for %40 = %7 to %32 step %9 iter_args(%41 = %7, %42 = %38) -> (i32, i32) : i32 {
        %43 = arith.remsi %40, %8 : i32
        plgpu.barrier_wait %4[%43] : !plgpu.barrier<3, arrivals = 2>, i32
        %44 = pallas.ref_slice %5[%43, :, :] : !pallas.ref<3x128x64xf16, smem>, i32 -> !pallas.ref<128x64xf16, smem>
        %45 = pallas.ref_slice %6[%43, :, :] : !pallas.ref<3x64x128xf16, smem>, i32 -> !pallas.ref<64x128xf16, smem>
        plgpu.wgmma %1, %44, %45 : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
        plgpu.wgmma_wait 1
        %46 = arith.constant 2 : i32
        %47 = arith.addi %40, %46 : i32
        %48 = arith.remsi %47, %8 : i32
        %49 = arith.cmpi sge, %40, %9 : i32
        %50 = arith.cmpi slt, %47, %32 : i32
        %51 = arith.andi %49, %50 : i1
        scf.if %51 {
          %52 = arith.constant 128 : i32
          %53 = arith.muli %2, %52 : i32
          %54 = arith.constant 64 : i32
          %55 = arith.muli %42, %54 : i32
          %56 = pallas.ref_slice %a[ds(%53, 128), ds(%55, 64)] : !pallas.ref<512x512xf16, gmem> -> !pallas.ref<128x64xf16, gmem>
          %57 = pallas.ref_slice %5[%48, :, :] : !pallas.ref<3x128x64xf16, smem>, i32 -> !pallas.ref<128x64xf16, smem>
          plgpu.copy_gmem_to_smem %56 -> %57, %4[%48] : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<3, arrivals = 2>, i32
          %58 = arith.muli %42, %54 : i32
          %59 = arith.muli %3, %52 : i32
          %60 = pallas.ref_slice %b[ds(%58, 64), ds(%59, 128)] : !pallas.ref<512x512xf16, gmem> -> !pallas.ref<64x128xf16, gmem>
          %61 = pallas.ref_slice %6[%48, :, :] : !pallas.ref<3x64x128xf16, smem>, i32 -> !pallas.ref<64x128xf16, smem>
          plgpu.copy_gmem_to_smem %60 -> %61, %4[%48] : !pallas.ref<64x128xf16, gmem>, !pallas.ref<64x128xf16, smem>, !plgpu.barrier<3, arrivals = 2>, i32
        }
        %62 = arith.addi %42, %9 : i32
        %63 = arith.select %30, %62, %42 : i32
        %64 = arith.cmpi eq, %63, %32 : i32
        %65 = arith.select %64, %7, %63 : i32
        %66 = arith.addi %41, %9 : i32
        %67 = arith.select %30, %66, %41 : i32
        %68 = arith.cmpi eq, %67, %32 : i32
        %69 = arith.select %68, %7, %67 : i32
        scf.yield %69, %65 : i32, i32
      }
    } {plgpu.transforms = [[], [#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], [#plgpu.tiling<8, 64>, #plgpu.swizzle<128>]]}
    plgpu.wgmma_wait 0
    %70 = pallas.load %1[...] : !pallas.ref<128x128xf32, regs> -> tensor<128x128xf32>
    %71 = arith.truncf %70 : tensor<128x128xf32> to tensor<128x128xf16>
    pallas.store %0[...], %71 : !pallas.ref<128x128xf16, smem>, tensor<128x128xf16>
    plgpu.commit_smem
    %72 = arith.constant 128 : i32
    %73 = arith.muli %2, %72 : i32
    %74 = arith.muli %3, %72 : i32
    %75 = pallas.ref_slice %out[ds(%73, 128), ds(%74, 128)] : !pallas.ref<512x512xf16, gmem> -> !pallas.ref<128x128xf16, gmem>
    plgpu.copy_smem_to_gmem %0 -> %75 : !pallas.ref<128x128xf16, smem>, !pallas.ref<128x128xf16, gmem>
    plgpu.wait_smem_to_gmem 0
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], []]}
  pallas.return
}
