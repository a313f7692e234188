// RUN: pallas-opt %s --pallas-assign-layouts=wgmma=true --convert-tile-to-nvvm | FileCheck %s

// A causal mask in the wgmma layout: q_off + row >= k_off + col. Each
// thread's slots are its first element shifted by constants, so the
// compare is one subtraction of the two sides at that element and a
// compare with an immediate per slot: (q_off + r0) - (k_off + c0) >=
// c - r, for the slot's shifts (r, c). Not two index tiles a register a
// slot each.
// CHECK-LABEL: gpu.func @causal_mask
// CHECK-NOT: arith.subi
// CHECK: %[[D:.*]] = arith.subi %[[Q:.*]], %[[K:.*]] : i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.cmpi sge, %[[D]], %[[C0]] : i32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.cmpi sge, %[[D]], %[[C1]] : i32
// CHECK-NEXT: %[[C2:.*]] = arith.constant -8 : i32
// CHECK-NEXT: arith.cmpi sge, %[[D]], %[[C2]] : i32
// CHECK-COUNT-29: arith.cmpi sge, %[[D]], %{{.*}} : i32
  tt.func public @causal_mask(%pq: !tt.ptr<bf16>, %pk: !tt.ptr<bf16>, %po: !tt.ptr<f32>, %qoff: i32, %koff: i32)
      attributes {pallas.launch = #pallas.launch<symbol = "causal_mask", grid = [1], num_warps = 4>} {
    %r = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32>
    %q0 = tt.splat %pq : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>>
    %q1 = tt.addptr %q0, %r : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %q2 = tt.load %q1 : tensor<4096x!tt.ptr<bf16>>
    %q = tt.reshape %q2 : tensor<4096xbf16> -> tensor<64x64xbf16>
    %k0 = tt.splat %pk : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>>
    %k1 = tt.addptr %k0, %r : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %k2 = tt.load %k1 : tensor<4096x!tt.ptr<bf16>>
    %kt = tt.reshape %k2 : tensor<4096xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tt.dot %q, %kt, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
    %i = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %qs = tt.splat %qoff : i32 -> tensor<64xi32>
    %qi = arith.addi %qs, %i : tensor<64xi32>
    %ks = tt.splat %koff : i32 -> tensor<64xi32>
    %ki = arith.addi %ks, %i : tensor<64xi32>
    %qe = tt.expand_dims %qi {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %qb = tt.broadcast %qe : tensor<64x1xi32> -> tensor<64x64xi32>
    %ke = tt.expand_dims %ki {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %kb = tt.broadcast %ke : tensor<1x64xi32> -> tensor<64x64xi32>
    %m = arith.cmpi sge, %qb, %kb : tensor<64x64xi32>
    %ninf = arith.constant dense<-1.0e30> : tensor<64x64xf32>
    %sm = arith.select %m, %s, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %f = tt.reshape %sm : tensor<64x64xf32> -> tensor<4096xf32>
    %o0 = tt.splat %po : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>>
    %o1 = tt.addptr %o0, %r : tensor<4096x!tt.ptr<f32>>, tensor<4096xi32>
    tt.store %o1, %f : tensor<4096x!tt.ptr<f32>>
    tt.return
  }
