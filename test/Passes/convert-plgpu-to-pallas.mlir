// RUN: pallas-opt %s -convert-plgpu-to-pallas -split-input-file -verify-diagnostics | FileCheck %s
// A one-warpgroup plgpu kernel in program order: copies complete at issue,
// wgmma accumulates a dot into its zero-started accumulator, axis_index
// reads the program id, which runs over the grid times the cluster (a grid
// axis: the cluster's place in the grid; a cluster axis: the block's place
// in its cluster).

// CHECK-LABEL: pallas.kernel @matmul
pallas.kernel @matmul(%a: !pallas.ref<128x64xf16, gmem>, %b: !pallas.ref<64x128xf16, gmem>,
                      %o: !pallas.ref<128x128xf32, gmem>)
    attributes {plgpu.mesh = #plgpu.mesh<grid = [4], grid_names = ["m"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "wg">} {
  // CHECK: %[[M:.*]] = pallas.program_id 0 : i32
  // CHECK: %[[TWO:.*]] = arith.constant 2 : i32
  // CHECK: arith.divui %[[M]], %[[TWO]] : i32
  // CHECK: %[[P:.*]] = pallas.program_id 0 : i32
  // CHECK: %[[TWO2:.*]] = arith.constant 2 : i32
  // CHECK: arith.remui %[[P]], %[[TWO2]] : i32
  // CHECK: arith.constant 0 : i32
  %m = plgpu.axis_index "m" : i32
  %c = plgpu.axis_index "c" : i32
  %t = plgpu.axis_index "wg" : i32
  // The copies into SMEM, the accumulator and the copy out are values
  // passed through memory: the dot takes the loads from GMEM and the
  // zero-started accumulator, the reduction adds the dot to GMEM.
  // CHECK: pallas.run_scoped
  // CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  // CHECK-NEXT: %[[A:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<128x64xf16, gmem> -> tensor<128x64xf16>
  // CHECK-NEXT: %[[B:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<64x128xf16, gmem> -> tensor<64x128xf16>
  // CHECK-NEXT: %[[D:.*]] = pallas.dot %[[A]], %[[B]] acc %[[Z]]
  // CHECK-NEXT: %[[OLD:.*]] = pallas.load %{{.*}}[...] : !pallas.ref<128x128xf32, gmem>
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[OLD]], %[[D]]
  // CHECK-NEXT: pallas.store %{{.*}}[...], %[[S]] : !pallas.ref<128x128xf32, gmem>
  // CHECK-NEXT: }
  // CHECK-NOT: plgpu.
  pallas.run_scoped (%as: !pallas.ref<128x64xf16, smem>, %bs: !pallas.ref<64x128xf16, smem>,
                     %bar: !plgpu.barrier<1, arrivals = 2>, %acc: !pallas.ref<128x128xf32, regs>,
                     %os: !pallas.ref<128x128xf32, smem>) {
    plgpu.copy_gmem_to_smem %a -> %as, %bar : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<1, arrivals = 2>
    plgpu.copy_gmem_to_smem %b -> %bs, %bar : !pallas.ref<64x128xf16, gmem>, !pallas.ref<64x128xf16, smem>, !plgpu.barrier<1, arrivals = 2>
    plgpu.barrier_wait %bar : !plgpu.barrier<1, arrivals = 2>
    plgpu.wgmma %acc, %as, %bs : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
    plgpu.wgmma_wait 0
    %r = pallas.load %acc[...] : !pallas.ref<128x128xf32, regs> -> tensor<128x128xf32>
    %l = plgpu.layout_cast %r {layout = "wgmma"} : tensor<128x128xf32>
    pallas.store %os[...], %l : !pallas.ref<128x128xf32, smem>, tensor<128x128xf32>
    plgpu.commit_smem
    plgpu.copy_smem_to_gmem %os -> %o {reduction = "add"} : !pallas.ref<128x128xf32, smem>, !pallas.ref<128x128xf32, gmem>
    plgpu.wait_smem_to_gmem 0
  }
  pallas.return
}

// A loop that reads the accumulator before writing it carries it.
// CHECK-LABEL: pallas.kernel @kloop
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<64x64xf32>)
// CHECK: %[[D:.*]] = pallas.dot %{{.*}}, %{{.*}} acc %[[ACC]]
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: arith.truncf %[[R]]
pallas.kernel @kloop(%a: !pallas.ref<64x256xf16, gmem>, %b: !pallas.ref<256x64xf16, gmem>,
                     %o: !pallas.ref<64x64xf16, gmem>)
    attributes {plgpu.mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  pallas.run_scoped (%as: !pallas.ref<64x64xf16, smem>, %bs: !pallas.ref<64x64xf16, smem>,
                     %acc: !pallas.ref<64x64xf32, regs>, %os: !pallas.ref<64x64xf16, smem>) {
    scf.for %k = %c0 to %c4 step %c1 : i32 {
      %off = arith.muli %k, %c64 : i32
      %aw = pallas.ref_slice %a[:, ds(%off, 64)] : !pallas.ref<64x256xf16, gmem> -> !pallas.ref<64x64xf16, gmem>
      %bw = pallas.ref_slice %b[ds(%off, 64), :] : !pallas.ref<256x64xf16, gmem> -> !pallas.ref<64x64xf16, gmem>
      plgpu.copy_gmem_to_smem %aw -> %as : !pallas.ref<64x64xf16, gmem>, !pallas.ref<64x64xf16, smem>
      plgpu.copy_gmem_to_smem %bw -> %bs : !pallas.ref<64x64xf16, gmem>, !pallas.ref<64x64xf16, smem>
      plgpu.wgmma %acc, %as, %bs : !pallas.ref<64x64xf32, regs>, !pallas.ref<64x64xf16, smem>, !pallas.ref<64x64xf16, smem>
    }
    plgpu.wgmma_wait 0
    %r = pallas.load %acc[...] : !pallas.ref<64x64xf32, regs> -> tensor<64x64xf32>
    %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xf16>
    pallas.store %os[...], %h : !pallas.ref<64x64xf16, smem>, tensor<64x64xf16>
    plgpu.commit_smem
    plgpu.copy_smem_to_gmem %os -> %o : !pallas.ref<64x64xf16, smem>, !pallas.ref<64x64xf16, gmem>
  }
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op has 2 Pallas threads (warpgroups) per block; this target runs plgpu kernels of one thread so far (num_threads = 1; the host target runs any number)}}
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

// -----

// A partitioned copy (leader_tracked) has no in-order form.
pallas.kernel @part(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["g"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "">} {
  pallas.run_scoped (%s: !pallas.ref<64x64xf16, smem>, %b: !plgpu.barrier<1, arrivals = 1>) {
    // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op partitions its window over the cluster (leader_tracked), which no target runs yet (Blackwell's CTA-pair copies)}}
    plgpu.copy_gmem_to_smem %x -> %s, %b {collective_axes = ["c"], partitioned = 0} : !pallas.ref<128x64xf16, gmem>, !pallas.ref<64x64xf16, smem>, !plgpu.barrier<1, arrivals = 1>
  }
  pallas.return
}
