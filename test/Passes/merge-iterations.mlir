// RUN: pallas-opt %s -pallas-merge-iterations -split-input-file | FileCheck %s
// RUN: pallas-opt %s -pallas-merge-iterations=max-registers=128 -split-input-file | FileCheck %s --check-prefix=TIGHT

// Attention backward's dK/dV scan on eight warps (JAX's mha: 64-row query
// blocks under a 128-row key block; the dQ share added by atomics, a
// causal mask from positions): two trips become one over 128 query rows.
// The bounds halve (both even: 2 * pid and 16), offsets step by 128, every
// tensor of the query rows doubles along them (the iota of positions
// copied into the loop: the one before it keeps its other uses).
// CHECK-LABEL: pallas.kernel @merged
// CHECK: %[[LB:.*]] = arith.divsi %{{.*}}, %c2_i32{{.*}} : i32
// CHECK: %[[UB:.*]] = arith.divsi %{{.*}}, %c2_i32{{.*}} : i32
// CHECK: scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %{{.*}} iter_args(%{{.*}}) -> (tensor<128x64xf32>)
// CHECK: %[[IOTA:.*]] = pallas.iota 0 : tensor<128xi32>
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %c128_i32 : i32
// CHECK: pallas.load %arg0[ds(%[[OFF]], 128), :] : !pallas.ref<1024x64xbf16> -> tensor<128x64xbf16>
// CHECK: pallas.dot {{.*}} -> tensor<128x128xf32>
// CHECK: pallas.load %arg2[ds(%[[OFF]], 128)] : !pallas.ref<1024xf32> -> tensor<128xf32>
// CHECK: arith.addi %{{.*}}, %[[IOTA]] : tensor<128xi32>
// CHECK: arith.constant dense<-1.000000e+30> : tensor<128x128xf32>
// CHECK: pallas.atomic_rmw add %arg3[ds(%[[OFF]], 128), :], %{{.*}} : !pallas.ref<1024x64xf32>, tensor<128x64xf32>
// CHECK: pallas.dot {{.*}} {transpose_lhs} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
// The carried value and the two largest f32 tensors at 128 rows: 160
// elements a thread, more than 128.
// TIGHT-LABEL: pallas.kernel @merged
// TIGHT: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @merged(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "merged", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// Four warps: a 64-row dot is one m64 block for the one warpgroup.
// CHECK-LABEL: pallas.kernel @four_warps
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @four_warps(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "four_warps", grid = [8], num_warps = 4>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// An odd bound (15 trips from an even start): the last trip has no pair.
// CHECK-LABEL: pallas.kernel @odd_trips
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @odd_trips(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "odd_trips", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 15 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// A max over the step's rows is not per row: two trips' rows are not one's.
// CHECK-LABEL: pallas.kernel @row_max
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @row_max(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "row_max", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %mx = pallas.reduce max %p [0] : tensor<64x128xf32> -> tensor<128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// The carried value read otherwise than by the sum (scaled each trip): two
// trips' partial sums are not one's.
// CHECK-LABEL: pallas.kernel @scaled_carry
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @scaled_carry(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "scaled_carry", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %a2 = arith.mulf %a, %a : tensor<128x64xf32>
    %an = arith.addf %a2, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// A store of the same elements on every trip would keep the other trip's.
// CHECK-LABEL: pallas.kernel @fixed_store
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @fixed_store(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "fixed_store", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    pallas.store %dk[...], %zero : !pallas.ref<128x64xf32>, tensor<128x64xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// A ref read and added into in the loop: the trips' order shows.
// CHECK-LABEL: pallas.kernel @read_written
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @read_written(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "read_written", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %seen = pallas.load %dq[ds(%c0, 64), :] : !pallas.ref<1024x64xf32> -> tensor<64x64xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// The offset read as a scalar (an element of its row): not a slice of the rows.
// CHECK-LABEL: pallas.kernel @offset_scalar
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @offset_scalar(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "offset_scalar", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %one = pallas.load %lse[%off] : !pallas.ref<1024xf32>, i32 -> f32
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    scf.yield %an : tensor<128x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// A second carried value counting the trips: half as many would halve it.
// CHECK-LABEL: pallas.kernel @counted
// CHECK: pallas.load %arg0[ds(%{{.*}}, 64), :]
pallas.kernel @counted(%q: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %k: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                      %lse: !pallas.ref<1024xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024], block = [1024], index_map = affine_map<(i) -> (0)>>},
                      %dq: !pallas.ref<1024x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                      %dk: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "counted", grid = [8], num_warps = 8>} {
  %kb = pallas.load %k[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %trips = arith.constant 16 : i32
  %pid = pallas.program_id 0 : i32
  %c2 = arith.constant 2 : i32
  %lb = arith.muli %pid, %c2 : i32
  %iota = pallas.iota 0 : tensor<64xi32>
  %kpos0 = arith.muli %pid, %c64 : i32
  %kpos1 = pallas.broadcast %kpos0 : i32 -> tensor<128xi32>
  %iota128 = pallas.iota 0 : tensor<128xi32>
  %kpos = arith.addi %kpos1, %iota128 : tensor<128xi32>
  %acc:2 = scf.for %i = %lb to %trips step %c1 iter_args(%a = %zero, %n = %c0) -> (tensor<128x64xf32>, i32) : i32 {
    %off = arith.muli %i, %c64 : i32
    %qb = pallas.load %q[ds(%off, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %l = pallas.load %lse[ds(%off, 64)] : !pallas.ref<1024xf32> -> tensor<64xf32>
    %lb2 = pallas.broadcast %l dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %qpos0 = pallas.broadcast %off : i32 -> tensor<64xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<64xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<64xi32> -> tensor<64x128xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<128xi32> -> tensor<64x128xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<64x128xi32>
    %fill = arith.constant dense<-1.0e30> : tensor<64x128xf32>
    %sm = arith.select %keep, %s, %fill : tensor<64x128xi1>, tensor<64x128xf32>
    %e0 = arith.subf %sm, %lb2 : tensor<64x128xf32>
    %p = math.exp2 %e0 : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %part = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %old = pallas.atomic_rmw add %dq[ds(%off, 64), :], %part : !pallas.ref<1024x64xf32>, tensor<64x64xf32>
    %dkp = pallas.dot %pb, %qb {transpose_lhs} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %a, %dkp : tensor<128x64xf32>
    %n1 = arith.addi %n, %c1 : i32
    scf.yield %an, %n1 : tensor<128x64xf32>, i32
  }
  pallas.store %dk[...], %acc#0 : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// The dQ scan of attention backward on one warpgroup: the step's key rows
// are only the scores' columns (N), so by default the loop is left; with
// `columns` two 32-row trips become one over 64 key rows (n64 scores, a
// k64 dQ dot), the bounds halved.
// RUN: pallas-opt %s -pallas-merge-iterations=warps=4 -split-input-file | FileCheck %s --check-prefix=ROWS
// RUN: pallas-opt %s -pallas-merge-iterations="warps=4 columns=true" -split-input-file | FileCheck %s --check-prefix=COLUMNS
// ROWS-LABEL: pallas.kernel @key_columns
// ROWS: pallas.load %arg1[ds(%{{.*}}, 32), :]
// COLUMNS-LABEL: pallas.kernel @key_columns
// COLUMNS: %[[LB:.*]] = arith.divsi %{{.*}}, %c2_i32{{.*}} : i32
// COLUMNS: %[[UB:.*]] = arith.divsi %{{.*}}, %c2_i32{{.*}} : i32
// COLUMNS: scf.for %{{.*}} = %[[LB]] to %[[UB]]
// COLUMNS: pallas.load %arg1[ds(%{{.*}}, 64), :] : !pallas.ref<1024x64xbf16> -> tensor<64x64xbf16>
// COLUMNS: pallas.dot %{{.*}}, %{{.*}} {transpose_rhs} : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
// COLUMNS: pallas.dot %{{.*}}, %{{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
pallas.kernel @key_columns(%q: !pallas.ref<64x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [64, 64], index_map = affine_map<(i) -> (i, 0)>>},
                           %k: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                           %dq: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [64, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "key_columns", grid = [16], num_warps = 4>} {
  %qb = pallas.load %q[...] : !pallas.ref<64x64xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %trips = arith.constant 32 : i32
  %acc = scf.for %i = %c0 to %trips step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %off = arith.muli %i, %c32 : i32
    %kb = pallas.load %k[ds(%off, 32), :] : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<32x64xbf16> -> tensor<64x32xf32>
    %p = math.exp2 %s : tensor<64x32xf32>
    %pb = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xbf16>
    %g = pallas.dot %pb, %kb : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %next = arith.addf %a, %g : tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  pallas.store %dq[...], %acc : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}
