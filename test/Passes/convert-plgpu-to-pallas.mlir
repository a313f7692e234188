// RUN: pallas-opt %s -convert-plgpu-to-pallas -split-input-file -verify-diagnostics | FileCheck %s
// A one-warpgroup plgpu kernel in program order: copies complete at issue,
// wgmma accumulates a dot into its zero-started accumulator, axis_index
// reads the program id (a cluster axis: the place in the cluster).

// CHECK-LABEL: pallas.kernel @matmul
pallas.kernel @matmul(%a: !pallas.ref<128x64xf16, gmem>, %b: !pallas.ref<64x128xf16, gmem>,
                      %o: !pallas.ref<128x128xf32, gmem>)
    attributes {plgpu.mesh = #plgpu.mesh<grid = [4], grid_names = ["m"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "wg">} {
  // CHECK: %[[M:.*]] = pallas.program_id 0 : i32
  // CHECK: %[[P:.*]] = pallas.program_id 0 : i32
  // CHECK: %[[TWO:.*]] = arith.constant 2 : i32
  // CHECK: arith.remsi %[[P]], %[[TWO]] : i32
  // CHECK: arith.constant 0 : i32
  %m = plgpu.axis_index "m" : i32
  %c = plgpu.axis_index "c" : i32
  %t = plgpu.axis_index "wg" : i32
  // CHECK: pallas.run_scoped
  // CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  // CHECK-NEXT: pallas.store %[[ACC:.*]][...], %[[Z]] : !pallas.ref<128x128xf32, regs>
  pallas.run_scoped (%as: !pallas.ref<128x64xf16, smem>, %bs: !pallas.ref<64x128xf16, smem>,
                     %bar: !plgpu.barrier<1, arrivals = 2>, %acc: !pallas.ref<128x128xf32, regs>,
                     %os: !pallas.ref<128x128xf32, smem>) {
    // CHECK: %[[VA:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<128x64xf16, gmem> -> tensor<128x64xf16>
    // CHECK-NEXT: pallas.store %{{.*}}[...], %[[VA]] : !pallas.ref<128x64xf16, smem>
    plgpu.copy_gmem_to_smem %a -> %as, %bar : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<1, arrivals = 2>
    plgpu.copy_gmem_to_smem %b -> %bs, %bar : !pallas.ref<64x128xf16, gmem>, !pallas.ref<64x128xf16, smem>, !plgpu.barrier<1, arrivals = 2>
    plgpu.barrier_wait %bar : !plgpu.barrier<1, arrivals = 2>
    // CHECK-NOT: plgpu.
    // CHECK: %[[A:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<128x64xf16, smem>
    // CHECK-NEXT: %[[B:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<64x128xf16, smem>
    // CHECK-NEXT: %[[C:.*]] = pallas.load %[[ACC]][...] : !pallas.ref<128x128xf32, regs>
    // CHECK-NEXT: %[[D:.*]] = pallas.dot %[[A]], %[[B]] acc %[[C]]
    // CHECK-NEXT: pallas.store %[[ACC]][...], %[[D]]
    plgpu.wgmma %acc, %as, %bs : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
    plgpu.wgmma_wait 0
    %r = pallas.load %acc[...] : !pallas.ref<128x128xf32, regs> -> tensor<128x128xf32>
    %l = plgpu.layout_cast %r {layout = "wgmma"} : tensor<128x128xf32>
    pallas.store %os[...], %l : !pallas.ref<128x128xf32, smem>, tensor<128x128xf32>
    plgpu.commit_smem
    // CHECK: %[[OLD:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<128x128xf32, gmem>
    // CHECK: arith.addf %[[OLD]]
    plgpu.copy_smem_to_gmem %os -> %o {reduction = "add"} : !pallas.ref<128x128xf32, smem>, !pallas.ref<128x128xf32, gmem>
    plgpu.wait_smem_to_gmem 0
    // CHECK-NOT: plgpu.
    // CHECK: pallas.return
  }
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op has 2 Pallas threads (warpgroups) per block; running plgpu kernels in order takes one (num_threads = 1)}}
pallas.kernel @two(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">} {
  pallas.return
}

// -----

pallas.kernel @inc(%x: !pallas.ref<64xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">} {
  pallas.run_scoped (%s: !pallas.ref<64xf32, smem>) {
    // expected-error @+1 {{'plgpu.copy_smem_to_gmem' op cannot run in order on this target}}
    plgpu.copy_smem_to_gmem %s -> %x {reduction = "xor"} : !pallas.ref<64xf32, smem>, !pallas.ref<64xf32, gmem>
  }
  pallas.return
}
