// RUN: pallas-opt %s --pallas-assign-layouts=wgmma=true | FileCheck %s
// RUN: pallas-opt %s --pallas-assign-layouts=wgmma=true --convert-tile-to-nvvm | FileCheck %s --check-prefix=NVVM

// One step of flash attention's backward (JAX's mha_backward): P = exp2(S -
// lse), dV's dot takes P^T as its A, and dP's dot starts its accumulator at
// 0 - delta broadcast over the rows.
//
// The accumulator start is computed in the wgmma layout: delta's row
// broadcasts into it, the zero splat costs nothing; the 64 x 64 tile does
// not cross shared memory.
// CHECK-LABEL: tt.func public @bwd_step
// CHECK: tt.dot
// CHECK: tt.dot
// CHECK: %[[DB:.*]] = tt.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// CHECK-NEXT: %[[ZERO:.*]] = tensor.cast %{{.*}} : tensor<64x64xf32> to tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// CHECK-NEXT: %[[ACC:.*]] = arith.subf %[[ZERO]], %[[DB]] : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// CHECK-NEXT: tt.dot %{{.*}}, %{{.*}}, %[[ACC]]
//
// P^T's buffer (the MN-major A of dV's dot, wgmma's transpose flag) is
// written from P's accumulator registers, a pair of adjacent bf16 per
// store: 16 stores per thread, no exchange into the blocked layout first.
// NVVM: nvvm.wgmma.wait.group.sync.aligned 0
// NVVM: gpu.barrier
// NVVM-COUNT-16: llvm.store {{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// NVVM-NOT: llvm.load {{.*}} !llvm.ptr<3>
// NVVM: nvvm.fence.proxy
// NVVM-NEXT: gpu.barrier
// NVVM: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  tt.func public @bwd_step(%pq: !tt.ptr<bf16>, %pkt: !tt.ptr<bf16>, %pvt: !tt.ptr<bf16>, %pdo: !tt.ptr<bf16>,
                           %plse: !tt.ptr<f32>, %pdelta: !tt.ptr<f32>, %pdv: !tt.ptr<f32>, %pds: !tt.ptr<f32>)
      attributes {pallas.launch = #pallas.launch<symbol = "bwd_step", grid = [1], num_warps = 4>} {
    %r = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32>
    %r64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %q0 = tt.splat %pq : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>>
    %q1 = tt.addptr %q0, %r : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %q2 = tt.load %q1 : tensor<4096x!tt.ptr<bf16>>
    %q = tt.reshape %q2 : tensor<4096xbf16> -> tensor<64x64xbf16>
    %k0 = tt.splat %pkt : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>>
    %k1 = tt.addptr %k0, %r : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %k2 = tt.load %k1 : tensor<4096x!tt.ptr<bf16>>
    %kt = tt.reshape %k2 : tensor<4096xbf16> -> tensor<64x64xbf16>
    %v0 = tt.splat %pvt : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>>
    %v1 = tt.addptr %v0, %r : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %v2 = tt.load %v1 : tensor<4096x!tt.ptr<bf16>>
    %vt = tt.reshape %v2 : tensor<4096xbf16> -> tensor<64x64xbf16>
    %o0 = tt.splat %pdo : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>>
    %o1 = tt.addptr %o0, %r : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %o2 = tt.load %o1 : tensor<4096x!tt.ptr<bf16>>
    %do = tt.reshape %o2 : tensor<4096xbf16> -> tensor<64x64xbf16>
    %l0 = tt.splat %plse : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %l1 = tt.addptr %l0, %r64 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %lse = tt.load %l1 : tensor<64x!tt.ptr<f32>>
    %d0 = tt.splat %pdelta : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %d1 = tt.addptr %d0, %r64 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %delta = tt.load %d1 : tensor<64x!tt.ptr<f32>>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tt.dot %q, %kt, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
    %le = tt.expand_dims %lse {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %lb = tt.broadcast %le : tensor<64x1xf32> -> tensor<64x64xf32>
    %sl = arith.subf %s, %lb : tensor<64x64xf32>
    %p = math.exp2 %sl : tensor<64x64xf32>
    %ph = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
    %pt = tt.trans %ph {order = array<i32: 1, 0>} : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %dv = tt.dot %pt, %do, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
    %de = tt.expand_dims %delta {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %db = tt.broadcast %de : tensor<64x1xf32> -> tensor<64x64xf32>
    %nd = arith.subf %z, %db : tensor<64x64xf32>
    %dp = tt.dot %do, %vt, %nd : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32>
    %dvf = tt.reshape %dv : tensor<64x64xf32> -> tensor<4096xf32>
    %w0 = tt.splat %pdv : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>>
    %w1 = tt.addptr %w0, %r : tensor<4096x!tt.ptr<f32>>, tensor<4096xi32>
    tt.store %w1, %dvf : tensor<4096x!tt.ptr<f32>>
    %dsf = tt.reshape %ds : tensor<64x64xf32> -> tensor<4096xf32>
    %x0 = tt.splat %pds : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>>
    %x1 = tt.addptr %x0, %r : tensor<4096x!tt.ptr<f32>>, tensor<4096xi32>
    tt.store %x1, %dsf : tensor<4096x!tt.ptr<f32>>
    tt.return
  }
