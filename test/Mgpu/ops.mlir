// RUN: pallas-opt %s | FileCheck %s
// RUN: pallas-opt %s | pallas-opt | FileCheck %s
// RUN: pallas-opt -mlir-print-op-generic %s | pallas-opt | FileCheck %s
// Every plgpu op round-trips, in a kernel shaped as Pallas:MGPU's pipelined
// matmul: whole-array GMEM operands, SMEM scratch with transforms, a
// barrier array, the WGMMA accumulator.

// CHECK-LABEL: pallas.kernel @matmul
// CHECK-SAME: attributes {plgpu.mesh = #plgpu.mesh<grid = [2, 2], grid_names = ["m", "n"], cluster = [2], cluster_names = ["c"], num_threads = 2, thread_name = "wg">}
pallas.kernel @matmul(%a: !pallas.ref<256x256xf16, gmem>, %b: !pallas.ref<256x256xf16, gmem>,
                      %o: !pallas.ref<256x256xf16, gmem>)
    attributes {plgpu.mesh = #plgpu.mesh<grid = [2, 2], grid_names = ["m", "n"], cluster = [2], cluster_names = ["c"], num_threads = 2, thread_name = "wg">} {
  // CHECK: plgpu.axis_index "m" : i32
  // CHECK: plgpu.axis_index "c" : i32
  // CHECK: plgpu.axis_index "wg" : i32
  %mi = plgpu.axis_index "m" : i32
  %ci = plgpu.axis_index "c" : i32
  %wg = plgpu.axis_index "wg" : i32
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %row = arith.muli %mi, %c128 : i32
  // CHECK: pallas.run_scoped
  pallas.run_scoped (%as: !pallas.ref<2x128x64xf16, smem>, %bs: !pallas.ref<64x128xf16, smem>,
                     %bar: !plgpu.barrier<2, arrivals = 2>, %one: !plgpu.barrier<1, arrivals = 1>,
                     %acc: !pallas.ref<128x128xf32, regs>, %os: !pallas.ref<128x128xf16, smem>) {
    %slot = pallas.ref_slice %as[%c0, :, :] : !pallas.ref<2x128x64xf16, smem>, i32 -> !pallas.ref<128x64xf16, smem>
    %win = pallas.ref_slice %a[ds(%row, 128), ds(0, 64)] : !pallas.ref<256x256xf16, gmem> -> !pallas.ref<128x64xf16, gmem>
    // CHECK: plgpu.copy_gmem_to_smem %{{.*}} -> %{{.*}}, %{{.*}}[%{{.*}}] : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<2, arrivals = 2>, i32
    plgpu.copy_gmem_to_smem %win -> %slot, %bar[%c0] : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<2, arrivals = 2>, i32
    // CHECK: plgpu.copy_gmem_to_smem %{{.*}} -> %{{.*}}, %{{.*}} {collective_axes = ["c"], partitioned = 0 : i64} : !pallas.ref<128x64xf16, gmem>, !pallas.ref<64x64xf16, smem>, !plgpu.barrier<1, arrivals = 1>
    %half = pallas.ref_slice %slot[ds(0, 64), :] : !pallas.ref<128x64xf16, smem> -> !pallas.ref<64x64xf16, smem>
    plgpu.copy_gmem_to_smem %win -> %half, %one {collective_axes = ["c"], partitioned = 0} : !pallas.ref<128x64xf16, gmem>, !pallas.ref<64x64xf16, smem>, !plgpu.barrier<1, arrivals = 1>
    // CHECK: plgpu.copy_gmem_to_smem %{{.*}} -> %{{.*}} : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>
    plgpu.copy_gmem_to_smem %win -> %slot : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>
    // CHECK: plgpu.barrier_arrive %{{.*}}[%{{.*}}] : !plgpu.barrier<2, arrivals = 2>, i32
    // CHECK: plgpu.barrier_wait %{{.*}} : !plgpu.barrier<1, arrivals = 1>
    // CHECK: plgpu.barrier_test %{{.*}}[%{{.*}}] : !plgpu.barrier<2, arrivals = 2>, i32 -> i1
    plgpu.barrier_arrive %bar[%c0] : !plgpu.barrier<2, arrivals = 2>, i32
    plgpu.barrier_wait %one : !plgpu.barrier<1, arrivals = 1>
    %done = plgpu.barrier_test %bar[%c0] : !plgpu.barrier<2, arrivals = 2>, i32 -> i1
    // CHECK: plgpu.set_max_registers 232 {increase}
    plgpu.set_max_registers 232 {increase}
    // CHECK: plgpu.wgmma %{{.*}}, %{{.*}}, %{{.*}} : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
    plgpu.wgmma %acc, %slot, %bs : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
    // CHECK: plgpu.wgmma %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : !pallas.ref<128x128xf32, regs>, tensor<128x64xf16>, !pallas.ref<128x64xf16, smem>
    %areg = pallas.load %slot[...] : !pallas.ref<128x64xf16, smem> -> tensor<128x64xf16>
    plgpu.wgmma %acc, %areg, %slot {transpose_b} : !pallas.ref<128x128xf32, regs>, tensor<128x64xf16>, !pallas.ref<128x64xf16, smem>
    // CHECK: plgpu.wgmma_wait 0
    plgpu.wgmma_wait 0
    %r = pallas.load %acc[...] : !pallas.ref<128x128xf32, regs> -> tensor<128x128xf32>
    // CHECK: plgpu.layout_cast %{{.*}} {layout = "wgmma"} : tensor<128x128xf32>
    %l = plgpu.layout_cast %r {layout = "wgmma"} : tensor<128x128xf32>
    %h = arith.truncf %l : tensor<128x128xf32> to tensor<128x128xf16>
    pallas.store %os[...], %h : !pallas.ref<128x128xf16, smem>, tensor<128x128xf16>
    // CHECK: plgpu.commit_smem
    plgpu.commit_smem
    %owin = pallas.ref_slice %o[ds(%row, 128), ds(0, 128)] : !pallas.ref<256x256xf16, gmem> -> !pallas.ref<128x128xf16, gmem>
    // CHECK: plgpu.copy_smem_to_gmem %{{.*}} -> %{{.*}} : !pallas.ref<128x128xf16, smem>, !pallas.ref<128x128xf16, gmem>
    // CHECK: plgpu.copy_smem_to_gmem %{{.*}} -> %{{.*}} {commit_group = false, reduction = "add"}
    plgpu.copy_smem_to_gmem %os -> %owin : !pallas.ref<128x128xf16, smem>, !pallas.ref<128x128xf16, gmem>
    plgpu.copy_smem_to_gmem %os -> %owin {commit_group = false, reduction = "add"} : !pallas.ref<128x128xf16, smem>, !pallas.ref<128x128xf16, gmem>
    // CHECK: plgpu.commit_group
    // CHECK: plgpu.wait_smem_to_gmem 0 {read_only}
    // CHECK: plgpu.wait_smem_to_gmem 1
    plgpu.commit_group
    plgpu.wait_smem_to_gmem 0 {read_only}
    plgpu.wait_smem_to_gmem 1
  // CHECK: plgpu.collective_axes = ["c"]
  // CHECK-SAME: plgpu.transforms = {{\[}}[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], [#plgpu.swizzle<64>], [], [], [], []]
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>], [#plgpu.swizzle<64>], [], [], [], []], plgpu.collective_axes = ["c"]}
  pallas.return
}
