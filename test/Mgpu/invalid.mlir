// RUN: pallas-opt %s -split-input-file -verify-diagnostics
// One located message per mistake in the plgpu model.

// expected-error @+1 {{#plgpu.mesh num_threads must be in [1, 16], got 17}}
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 17, thread_name = "wg">} {
  pallas.return
}

// -----

// expected-error @+1 {{#plgpu.mesh names axis 'x' twice}}
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["x"], cluster = [], cluster_names = [], num_threads = 1, thread_name = "x">} {
  pallas.return
}

// -----

// expected-error @+1 {{#plgpu.mesh has 2 grid axes but 1 grid names}}
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2, 2], grid_names = ["x"], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">} {
  pallas.return
}

// -----

// expected-error @+1 {{#plgpu.mesh cluster has 4 axes, at most 3 are supported}}
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["x"], cluster = [1, 1, 1, 1], cluster_names = [], num_threads = 1, thread_name = "">} {
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["x"], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">} {
  // expected-error @+1 {{'plgpu.axis_index' op axis 'y' is not an axis of the kernel's mesh}}
  %i = plgpu.axis_index "y" : i32
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) {
  // expected-error @+1 {{'plgpu.commit_smem' op is only valid in a plgpu kernel (a pallas.kernel with a 'plgpu.mesh' attribute)}}
  plgpu.commit_smem
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op 'plgpu.mesh' must be a #plgpu.mesh, got 3 : i64}}
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = 3} {
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x32xf16, smem>, %b: !plgpu.barrier<2, arrivals = 1>) {
    // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op copies a [128, 64] source into a [128, 32] destination (shapes must match)}}
    plgpu.copy_gmem_to_smem %x -> %s : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x32xf16, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x64xf16, smem>, %b: !plgpu.barrier<2, arrivals = 1>) {
    // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op needs an index into the 2 barriers of '!plgpu.barrier<2, arrivals = 1>'}}
    plgpu.copy_gmem_to_smem %x -> %s, %b : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<2, arrivals = 1>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x64xf16, smem>) {
    // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op source must be a GMEM ref, got '!pallas.ref<128x64xf16, smem>'}}
    plgpu.copy_gmem_to_smem %s -> %s : !pallas.ref<128x64xf16, smem>, !pallas.ref<128x64xf16, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x64xf16, smem>, %b: !plgpu.barrier<1, arrivals = 1>) {
    // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op collective axis 'c' is not a cluster axis of}}
    plgpu.copy_gmem_to_smem %x -> %s, %b {collective_axes = ["c"]} : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<1, arrivals = 1>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x64xf16, smem>) {
    // expected-error @+1 {{'plgpu.copy_smem_to_gmem' op destination must be a GMEM ref, got '!pallas.ref<128x64xf16, smem>'}}
    plgpu.copy_smem_to_gmem %s -> %s : !pallas.ref<128x64xf16, smem>, !pallas.ref<128x64xf16, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x64xf16, smem>) {
    // expected-error @+1 {{'plgpu.copy_smem_to_gmem' op unknown reduction 'mul' (expected add, min, max, inc, dec, and, or or xor)}}
    plgpu.copy_smem_to_gmem %s -> %x {reduction = "mul"} : !pallas.ref<128x64xf16, smem>, !pallas.ref<128x64xf16, gmem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  %c2 = arith.constant 2 : i32
  pallas.run_scoped (%b: !plgpu.barrier<2, arrivals = 1>) {
    // expected-error @+1 {{'plgpu.barrier_wait' op barrier index 2 is out of range for 2 barriers}}
    plgpu.barrier_wait %b[%c2] : !plgpu.barrier<2, arrivals = 1>, i32
  }
  pallas.return
}

// -----

// expected-error @+1 {{!plgpu.barrier arrivals must be in [1, 1048575], got 0}}
func.func @f(%b: !plgpu.barrier<1, arrivals = 0>)

// -----

// expected-error @+1 {{#plgpu.swizzle must be 32, 64 or 128 bytes, got 16}}
func.func @f() attributes {x = #plgpu.swizzle<16>}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'pallas.run_scoped' op scoped value #1 has transforms but is not an SMEM ref}}
  pallas.run_scoped (%s: !pallas.ref<64x64xf16, smem>, %a: !pallas.ref<64x64xf32, regs>) {
  } {plgpu.transforms = [[], [#plgpu.swizzle<128>]]}
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'pallas.run_scoped' op 'plgpu.transforms' must hold one array per scoped value (1)}}
  pallas.run_scoped (%s: !pallas.ref<64x64xf16, smem>) {
  } {plgpu.transforms = [[], []]}
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%a: !pallas.ref<128x64xf16, smem>, %b: !pallas.ref<32x128xf16, smem>, %acc: !pallas.ref<128x128xf32, regs>,
                     %acc64: !pallas.ref<64x128xf32, smem>, %i: !pallas.ref<64x32xi8, smem>, %ib: !pallas.ref<32x128xi8, smem>,
                     %hacc: !pallas.ref<64x128xf16, regs>, %b64: !pallas.ref<64x128xf16, smem>, %a48: !pallas.ref<48x64xf16, smem>,
                     %acc48: !pallas.ref<48x128xf32, regs>) {
    // expected-error @+1 {{'plgpu.wgmma' op contracts A's K = 64 with B's K = 32}}
    plgpu.wgmma %acc, %a, %b : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<32x128xf16, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%a: !pallas.ref<128x64xf16, smem>, %b: !pallas.ref<32x128xf16, smem>, %acc: !pallas.ref<128x128xf32, regs>,
                     %acc64: !pallas.ref<64x128xf32, smem>, %i: !pallas.ref<64x32xi8, smem>, %ib: !pallas.ref<32x128xi8, smem>,
                     %hacc: !pallas.ref<64x128xf16, regs>, %b64: !pallas.ref<64x128xf16, smem>, %a48: !pallas.ref<48x64xf16, smem>,
                     %acc48: !pallas.ref<48x128xf32, regs>) {
    // expected-error @+1 {{'plgpu.wgmma' op accumulator must be a 2-D regs ref (plgpu.ACC), got '!pallas.ref<64x128xf32, smem>'}}
    plgpu.wgmma %acc64, %a, %b64 : !pallas.ref<64x128xf32, smem>, !pallas.ref<128x64xf16, smem>, !pallas.ref<64x128xf16, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%a: !pallas.ref<128x64xf16, smem>, %b: !pallas.ref<32x128xf16, smem>, %acc: !pallas.ref<128x128xf32, regs>,
                     %acc64: !pallas.ref<64x128xf32, smem>, %i: !pallas.ref<64x32xi8, smem>, %ib: !pallas.ref<32x128xi8, smem>,
                     %hacc: !pallas.ref<64x128xf16, regs>, %b64: !pallas.ref<64x128xf16, smem>, %a48: !pallas.ref<48x64xf16, smem>,
                     %acc48: !pallas.ref<48x128xf32, regs>) {
    // expected-error @+1 {{'plgpu.wgmma' op accumulator is [128, 128] but A @ B is [64, 128]}}
    plgpu.wgmma %acc, %i, %ib : !pallas.ref<128x128xf32, regs>, !pallas.ref<64x32xi8, smem>, !pallas.ref<32x128xi8, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%a: !pallas.ref<128x64xf16, smem>, %b: !pallas.ref<32x128xf16, smem>, %acc: !pallas.ref<128x128xf32, regs>,
                     %acc64: !pallas.ref<64x128xf32, smem>, %i: !pallas.ref<64x32xi8, smem>, %ib: !pallas.ref<32x128xi8, smem>,
                     %hacc: !pallas.ref<64x128xf16, regs>, %b64: !pallas.ref<64x128xf16, smem>, %a48: !pallas.ref<48x64xf16, smem>,
                     %acc48: !pallas.ref<48x128xf32, regs>) {
    // expected-error @+1 {{'plgpu.wgmma' op cannot accumulate 'i8' products in 'f16' (f16: f32 or f16; bf16, tf32: f32; f8: f32 or f16; i8: i32)}}
    plgpu.wgmma %hacc, %i, %ib : !pallas.ref<64x128xf16, regs>, !pallas.ref<64x32xi8, smem>, !pallas.ref<32x128xi8, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%a: !pallas.ref<128x64xf16, smem>, %b: !pallas.ref<32x128xf16, smem>, %acc: !pallas.ref<128x128xf32, regs>,
                     %acc64: !pallas.ref<64x128xf32, smem>, %i: !pallas.ref<64x32xi8, smem>, %ib: !pallas.ref<32x128xi8, smem>,
                     %hacc: !pallas.ref<64x128xf16, regs>, %b64: !pallas.ref<64x128xf16, smem>, %a48: !pallas.ref<48x64xf16, smem>,
                     %acc48: !pallas.ref<48x128xf32, regs>) {
    // expected-error @+1 {{'plgpu.wgmma' op M = 48 is not a multiple of 64 (one wgmma row block)}}
    plgpu.wgmma %acc48, %a48, %b64 : !pallas.ref<48x128xf32, regs>, !pallas.ref<48x64xf16, smem>, !pallas.ref<64x128xf16, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%a: !pallas.ref<128x64xf16, smem>, %b: !pallas.ref<32x128xf16, smem>, %acc: !pallas.ref<128x128xf32, regs>,
                     %acc64: !pallas.ref<64x128xf32, smem>, %i: !pallas.ref<64x32xi8, smem>, %ib: !pallas.ref<32x128xi8, smem>,
                     %hacc: !pallas.ref<64x128xf16, regs>, %b64: !pallas.ref<64x128xf16, smem>, %a48: !pallas.ref<48x64xf16, smem>,
                     %acc48: !pallas.ref<48x128xf32, regs>) {
    // expected-error @+1 {{'plgpu.wgmma' op A is 'f16' but B is 'i8'}}
    plgpu.wgmma %acc, %a, %ib : !pallas.ref<128x128xf32, regs>, !pallas.ref<128x64xf16, smem>, !pallas.ref<32x128xi8, smem>
  }
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'plgpu.set_max_registers' op register count must be a multiple of 8 in [24, 256], got 250}}
  plgpu.set_max_registers 250 {increase}
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'plgpu.set_max_registers' op needs exactly one of 'increase' or 'decrease'}}
  plgpu.set_max_registers 240
  pallas.return
}

// -----

func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'plgpu.layout_cast' op unknown layout 'blocked' (expected wgmma, wgmma_transposed, wgmma_row, wgmma_col, wg_splat, wg_strided or tiled)}}
  %y = plgpu.layout_cast %x {layout = "blocked"} : tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 2, thread_name = "wg">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'pallas.run_scoped' op scoped value #1 is a WGMMA accumulator (regs), each thread's own; it cannot be shared over thread axis "wg"}}
  pallas.run_scoped (%s: !pallas.ref<64x64xf16, smem>, %acc: !pallas.ref<64x64xf32, regs>) {
  } {plgpu.collective_axes = ["wg"]}
  pallas.return
}

// -----

// The generic form cannot leave a required operand out.
#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op operand group 'src' requires exactly 1 element, but found 2}}
  "plgpu.copy_gmem_to_smem"(%x, %x) <{operandSegmentSizes = array<i32: 2, 0, 0, 0>}> : (!pallas.ref<8xf32, gmem>, !pallas.ref<8xf32, gmem>) -> ()
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'pallas.run_scoped' op scoped value #0: tiling #plgpu.tiling<8, 64> does not divide the ref's dim of 100}}
  pallas.run_scoped (%s: !pallas.ref<100x64xf16, smem>) {
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>]]}
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [], grid_names = [], cluster = [], cluster_names = [], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  // expected-error @+1 {{'pallas.run_scoped' op scoped value #0: tiles of 64 x 'f32' (256 bytes) rows under a 128-byte swizzle}}
  pallas.run_scoped (%s: !pallas.ref<2x128x64xf32, smem>) {
  } {plgpu.transforms = [[#plgpu.tiling<8, 64>, #plgpu.swizzle<128>]]}
  pallas.return
}

// -----

// expected-error @+1 {{#plgpu.mesh clusters of 32 blocks; at most 16 blocks per cluster}}
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #plgpu.mesh<grid = [2], grid_names = ["x"], cluster = [4, 4, 2], cluster_names = [], num_threads = 1, thread_name = "">} {
  pallas.return
}

// -----

#mesh = #plgpu.mesh<grid = [2], grid_names = ["g"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<8xf32, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%b: !plgpu.barrier<1, arrivals = 1, collective = ["g"]>) {
    // expected-error @+1 {{'plgpu.barrier_arrive' op uses a cluster barrier over "g", which is not a cluster axis of}}
    plgpu.barrier_arrive %b : !plgpu.barrier<1, arrivals = 1, collective = ["g"]>
  }
  pallas.return
}

// -----

// expected-error @+1 {{!plgpu.barrier collective axes must be a non-empty array of cluster axis names, got []}}
func.func private @f(!plgpu.barrier<1, arrivals = 1, collective = []>)

// -----

#mesh = #plgpu.mesh<grid = [2], grid_names = ["g"], cluster = [2], cluster_names = ["c"], num_threads = 1, thread_name = "">
pallas.kernel @k(%x: !pallas.ref<128x64xf16, gmem>) attributes {plgpu.mesh = #mesh} {
  pallas.run_scoped (%s: !pallas.ref<128x64xf16, smem>, %b: !plgpu.barrier<1, arrivals = 1>) {
    // expected-error @+1 {{'plgpu.copy_gmem_to_smem' op partitions a [128, 64] source over 2 blocks along dimension 0: each block's destination must be [64, 64] of the source's element type, got '!pallas.ref<128x64xf16, smem>'}}
    plgpu.copy_gmem_to_smem %x -> %s, %b {collective_axes = ["c"], partitioned = 0} : !pallas.ref<128x64xf16, gmem>, !pallas.ref<128x64xf16, smem>, !plgpu.barrier<1, arrivals = 1>
  }
  pallas.return
}
