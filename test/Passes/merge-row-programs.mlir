// RUN: pallas-opt %s -pallas-merge-row-programs=bounded-loops=true -split-input-file | FileCheck %s
// RUN: pallas-opt %s -pallas-merge-row-programs=bounded-loops=false -split-input-file | FileCheck %s --check-prefix=UNBOUNDED
// RUN: pallas-opt %s -pallas-merge-row-programs -split-input-file | FileCheck %s

// JAX's attention backward on its default 32-row blocks, scaled down: each
// program takes the key rows [32 p, 32 p + 32) (K and V sliced from whole
// refs by ds(p * 32, 32)), walks every query block, and writes its dK rows
// as the block the grid's last axis picks; then takes the query rows of
// the same p for dQ. Two programs become one over 64 rows: the offsets
// step by 64, the slices and the blocks the axis picks double, every
// tensor holding the rows doubles along them (the scores along their
// columns: the key rows are the dot's N), the axis's extent halves.
// Tensors of other rows (the query trips, the feature masks) stay; an
// unused value is no trouble.
// CHECK-LABEL: pallas.kernel @attention_bwd
// CHECK-SAME: %arg3: !pallas.ref<64x64xbf16> {pallas.block_spec = #pallas.block_spec<output "dk", shape = [2, 256, 64], block = [1, 64, 64], squeezed = [0]
// CHECK-SAME: %arg4: !pallas.ref<64x64xbf16> {pallas.block_spec = #pallas.block_spec<output "dq", shape = [2, 256, 64], block = [1, 64, 64], squeezed = [0]
// CHECK-SAME: grid = [2, 4]
// CHECK: %[[PID:.*]] = pallas.program_id 1 : i32
// CHECK: %[[OFF:.*]] = arith.muli %[[PID]], %c64_i32 : i32
// CHECK: pallas.iota 0 : tensor<64xi32>
// CHECK: pallas.load %arg1[ds(%[[OFF]], 64), :] mask %{{.*}} other %{{.*}} : !pallas.ref<256x64xbf16> -> tensor<64x64xbf16>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32>)
// CHECK: pallas.load %arg0[ds(%{{.*}}, 32), :] mask %{{.*}} other %{{.*}} : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
// CHECK: pallas.dot %{{.*}}, %{{.*}} {transpose_rhs} : tensor<32x64xbf16>, tensor<64x64xbf16> -> tensor<32x64xf32>
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : tensor<32x64xi32>
// CHECK: pallas.dot %{{.*}}, %{{.*}} {transpose_lhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
// CHECK: pallas.store %arg3[...], %{{.*}} mask %{{.*}} : !pallas.ref<64x64xbf16>, tensor<64x64xbf16>
// CHECK: pallas.load %arg0[ds(%[[OFF]], 64), :] mask %{{.*}} other %{{.*}} : !pallas.ref<256x64xbf16> -> tensor<64x64xbf16>
// CHECK: pallas.load %arg2[ds(%[[OFF]], 64)] : !pallas.ref<256xf32> -> tensor<64xf32>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32>)
// CHECK: pallas.dot %{{.*}}, %{{.*}} {transpose_rhs} : tensor<64x64xbf16>, tensor<32x64xbf16> -> tensor<64x32xf32>
// CHECK: pallas.store %arg4[...], %{{.*}} mask %{{.*}} : !pallas.ref<64x64xbf16>, tensor<64x64xbf16>
pallas.kernel @attention_bwd(
    %q: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input "q", shape = [2, 256, 64], block = [1, 256, 64], squeezed = [0], index_map = affine_map<(b, p) -> (b, 0, 0)>>},
    %k: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input "k", shape = [2, 256, 64], block = [1, 256, 64], squeezed = [0], index_map = affine_map<(b, p) -> (b, 0, 0)>>},
    %lse: !pallas.ref<256xf32> {pallas.block_spec = #pallas.block_spec<input "lse", shape = [2, 256], block = [1, 256], squeezed = [0], index_map = affine_map<(b, p) -> (b, 0)>>},
    %dk: !pallas.ref<32x64xbf16> {pallas.block_spec = #pallas.block_spec<output "dk", shape = [2, 256, 64], block = [1, 32, 64], squeezed = [0], index_map = affine_map<(b, p) -> (b, p, 0)>>},
    %dq: !pallas.ref<32x64xbf16> {pallas.block_spec = #pallas.block_spec<output "dq", shape = [2, 256, 64], block = [1, 32, 64], squeezed = [0], index_map = affine_map<(b, p) -> (b, p, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "attention_bwd", grid = [2, 8], num_warps = 4>} {
  %pid = pallas.program_id 1 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %unused = arith.constant dense<1.0> : tensor<32x64xf32>
  %feat = pallas.iota 0 : tensor<64xi32>
  %d = arith.constant dense<64> : tensor<64xi32>
  %fin = arith.cmpi slt, %feat, %d : tensor<64xi32>
  %other = arith.constant dense<0.0> : tensor<32x64xbf16>
  %mask = pallas.broadcast %fin dims [1] : tensor<64xi1> -> tensor<32x64xi1>
  %kb = pallas.load %k[ds(%start, 32), :] mask %mask other %other : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
  %kpos0 = pallas.broadcast %start : i32 -> tensor<32xi32>
  %iota = pallas.iota 0 : tensor<32xi32>
  %kpos = arith.addi %kpos0, %iota : tensor<32xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %dkacc = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (tensor<32x64xf32>) : i32 {
    %qoff = arith.muli %i, %c32 : i32
    %qb = pallas.load %q[ds(%qoff, 32), :] mask %mask other %other : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %qpos0 = pallas.broadcast %qoff : i32 -> tensor<32xi32>
    %qpos = arith.addi %qpos0, %iota : tensor<32xi32>
    %qp = pallas.broadcast %qpos dims [0] : tensor<32xi32> -> tensor<32x32xi32>
    %kp = pallas.broadcast %kpos dims [1] : tensor<32xi32> -> tensor<32x32xi32>
    %keep = arith.cmpi sge, %qp, %kp : tensor<32x32xi32>
    %neg = arith.constant dense<-1.0e30> : tensor<32x32xf32>
    %sm = arith.select %keep, %s, %neg : tensor<32x32xi1>, tensor<32x32xf32>
    %p = math.exp2 %sm : tensor<32x32xf32>
    %pb = arith.truncf %p : tensor<32x32xf32> to tensor<32x32xbf16>
    %g = pallas.dot %pb, %qb {transpose_lhs} : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %next = arith.addf %a, %g : tensor<32x64xf32>
    scf.yield %next : tensor<32x64xf32>
  }
  %dkb = arith.truncf %dkacc : tensor<32x64xf32> to tensor<32x64xbf16>
  pallas.store %dk[...], %dkb mask %mask : !pallas.ref<32x64xbf16>, tensor<32x64xbf16>
  %qrows = pallas.load %q[ds(%start, 32), :] mask %mask other %other : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
  %lrows = pallas.load %lse[ds(%start, 32)] : !pallas.ref<256xf32> -> tensor<32xf32>
  %dqacc = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (tensor<32x64xf32>) : i32 {
    %koff = arith.muli %j, %c32 : i32
    %kj = pallas.load %k[ds(%koff, 32), :] mask %mask other %other : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
    %s = pallas.dot %qrows, %kj {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %l = pallas.broadcast %lrows dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %t = arith.subf %s, %l : tensor<32x32xf32>
    %p = math.exp2 %t : tensor<32x32xf32>
    %pb = arith.truncf %p : tensor<32x32xf32> to tensor<32x32xbf16>
    %g = pallas.dot %pb, %kj : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %next = arith.addf %a, %g : tensor<32x64xf32>
    scf.yield %next : tensor<32x64xf32>
  }
  %dqb = arith.truncf %dqacc : tensor<32x64xf32> to tensor<32x64xbf16>
  pallas.store %dq[...], %dqb mask %mask : !pallas.ref<32x64xbf16>, tensor<32x64xbf16>
  pallas.return
}

// -----

// A causal scan whose lower bound comes from the program id (JAX's dK/dV
// scan starts at the key block's diagonal) and one whose upper bound does
// (the dQ scan ends there): the merged program p runs programs 2p and
// 2p + 1's trips in order, the bounds of each the bound expressions with
// the id replaced. The trips both run, from an even trip, as one loop as
// written. The lower bound varying and the sum starting at a constant:
// the trips before the later lower bound run unguarded, then the rows of
// the program that has no such trip get the constant back (rows [0, 32)
// are program 2p's, [32, 64) 2p + 1's); the trips up to an even one, as
// written. The upper bound varying: after the even trip, a loop whose
// trips keep, in the rows of a program that has no such trip, the carried
// value (a sum adds zero there).
// Without bounded-loops (on by default) such kernels are left.
// UNBOUNDED-LABEL: pallas.kernel @bound_from_program
// UNBOUNDED-SAME: grid = [8]
// UNBOUNDED-LABEL: pallas.kernel @upper_from_program
// UNBOUNDED-SAME: grid = [8]
// CHECK-LABEL: pallas.kernel @bound_from_program
// CHECK-SAME: grid = [4]
// CHECK: %[[PID:.*]] = pallas.program_id 0 : i32
// CHECK: %[[P0:.*]] = arith.muli %[[PID]], %c2_i32 : i32
// CHECK: %[[P1:.*]] = arith.addi %[[P0]], %c1_i32 : i32
// CHECK: %[[S1:.*]] = arith.muli %[[P1]], %c32_i32 : i32
// CHECK: %[[LB1:.*]] = arith.divsi %[[S1]], %c32_i32 : i32
// CHECK: %[[LO:.*]] = arith.minsi %[[LB0:.*]], %[[LB1]] : i32
// CHECK: %[[HI:.*]] = arith.maxsi %[[LB0]], %[[LB1]] : i32
// CHECK: %[[HALF:.*]] = arith.ceildivsi %[[HI]], %c2_i32{{.*}} : i32
// CHECK: %[[EVEN:.*]] = arith.muli %[[HALF]], %c2_i32{{.*}} : i32
// CHECK: %[[END:.*]] = arith.minsi %[[HI]], %c8_i32 : i32
// CHECK: %[[FIRST:.*]] = scf.for %{{.*}} = %[[LO]] to %[[END]] step %c1_i32 iter_args(%{{.*}} = %[[ZERO:.*]]) -> (tensor<64x64xf32>)
// CHECK-NOT: arith.select
// CHECK: scf.yield
// CHECK: %[[RUNS0:.*]] = arith.cmpi eq, %[[LB0]], %[[LO]] : i32
// CHECK: %[[RUNS1:.*]] = arith.cmpi eq, %[[LB1]], %[[LO]] : i32
// CHECK: %[[ROWS:.*]] = pallas.iota 0 : tensor<64xi32>
// CHECK: %[[HALFROWS:.*]] = arith.cmpi slt, %[[ROWS]], %cst{{.*}} : tensor<64xi32>
// CHECK: %[[B0:.*]] = pallas.broadcast %[[RUNS0]] : i1 -> tensor<64xi1>
// CHECK: %[[B1:.*]] = pallas.broadcast %[[RUNS1]] : i1 -> tensor<64xi1>
// CHECK: %[[ROW:.*]] = arith.select %[[HALFROWS]], %[[B0]], %[[B1]] : tensor<64xi1>, tensor<64xi1>
// CHECK: %[[KEEP:.*]] = pallas.broadcast %[[ROW]] dims [0] : tensor<64xi1> -> tensor<64x64xi1>
// CHECK: %[[KEPT:.*]] = arith.select %[[KEEP]], %[[FIRST]], %[[ZERO]] : tensor<64x64xi1>, tensor<64x64xf32>
// CHECK: %[[MAIN:.*]] = arith.minsi %[[EVEN]], %c8_i32 : i32
// CHECK: %[[ODD:.*]] = scf.for %{{.*}} = %[[HI]] to %[[MAIN]] step %c1_i32 iter_args(%{{.*}} = %[[KEPT]])
// CHECK-NOT: arith.select
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %c8_i32 step %c1_i32 iter_args(%{{.*}} = %[[ODD]]) -> (tensor<64x64xf32>)
// CHECK-NOT: arith.select
// CHECK: scf.yield
// CHECK-LABEL: pallas.kernel @upper_from_program
// CHECK-SAME: grid = [4]
// CHECK: %[[UMIN:.*]] = arith.minsi
// CHECK: %[[UMAX:.*]] = arith.maxsi
// CHECK: %[[FLOOR:.*]] = arith.floordivsi %[[UMIN]], %c2_i32{{.*}} : i32
// CHECK: %[[EVEN:.*]] = arith.muli %[[FLOOR]], %c2_i32{{.*}} : i32
// CHECK: %[[MAINUB:.*]] = arith.maxsi %c0_i32, %[[EVEN]] : i32
// CHECK: %[[MAINLOOP:.*]] = scf.for %{{.*}} = %c0_i32 to %[[MAINUB]] step %c1_i32
// CHECK-NOT: arith.select
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %[[MAINUB]] to %[[UMAX]] step %c1_i32 iter_args(%{{.*}} = %[[MAINLOOP]])
// CHECK: arith.select
pallas.kernel @bound_from_program(
    %q: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %k: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %dk: !pallas.ref<32x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 64], block = [32, 64], index_map = affine_map<(p) -> (p, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "bound_from_program", grid = [8], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %lb = arith.divsi %start, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %kb = pallas.load %k[ds(%start, 32), :] : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %acc = scf.for %i = %lb to %c8 step %c1 iter_args(%a = %zero) -> (tensor<32x64xf32>) : i32 {
    %qoff = arith.muli %i, %c32 : i32
    %qb = pallas.load %q[ds(%qoff, 32), :] : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %sb = arith.truncf %s : tensor<32x32xf32> to tensor<32x32xbf16>
    %g = pallas.dot %sb, %qb {transpose_lhs} : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %next = arith.addf %a, %g : tensor<32x64xf32>
    scf.yield %next : tensor<32x64xf32>
  }
  pallas.store %dk[...], %acc : !pallas.ref<32x64xf32>, tensor<32x64xf32>
  pallas.return
}

pallas.kernel @upper_from_program(
    %q: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %k: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %dq: !pallas.ref<32x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 64], block = [32, 64], index_map = affine_map<(p) -> (p, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "upper_from_program", grid = [8], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %next = arith.addi %pid, %c1 : i32
  %end = arith.muli %next, %c32 : i32
  %round = arith.addi %end, %c31 : i32
  %ub = arith.divsi %round, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %qb = pallas.load %q[ds(%start, 32), :] : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
  %c0 = arith.constant 0 : i32
  %acc = scf.for %j = %c0 to %ub step %c1 iter_args(%a = %zero) -> (tensor<32x64xf32>) : i32 {
    %koff = arith.muli %j, %c32 : i32
    %kb = pallas.load %k[ds(%koff, 32), :] : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %sb = arith.truncf %s : tensor<32x32xf32> to tensor<32x32xbf16>
    %g = pallas.dot %sb, %kb : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %sum = arith.addf %a, %g : tensor<32x64xf32>
    scf.yield %sum : tensor<32x64xf32>
  }
  pallas.store %dq[...], %acc : !pallas.ref<32x64xf32>, tensor<32x64xf32>
  pallas.return
}

// -----

// A sum over the program's rows: two programs' rows would add up. Left.
// CHECK-LABEL: pallas.kernel @row_sum
// CHECK-SAME: grid = [8]
pallas.kernel @row_sum(
    %x: !pallas.ref<256x64xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %o: !pallas.ref<64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [512], block = [64], index_map = affine_map<(p) -> (p)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "row_sum", grid = [8], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %xb = pallas.load %x[ds(%start, 32), :] : !pallas.ref<256x64xf32> -> tensor<32x64xf32>
  %s = pallas.reduce sum %xb [0] : tensor<32x64xf32> -> tensor<64xf32>
  pallas.store %o[...], %s : !pallas.ref<64xf32>, tensor<64xf32>
  pallas.return
}

// -----

// A dot contracting the program's rows. Left.
// CHECK-LABEL: pallas.kernel @contracted
// CHECK-SAME: grid = [8]
pallas.kernel @contracted(
    %x: !pallas.ref<256x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %o: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [512, 64], block = [64, 64], index_map = affine_map<(p) -> (p, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "contracted", grid = [8], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %xb = pallas.load %x[ds(%start, 32), :] : !pallas.ref<256x64xbf16> -> tensor<32x64xbf16>
  %g = pallas.dot %xb, %xb {transpose_lhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  pallas.store %o[...], %g : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}

// -----

// Rows from the program id, but written to a block the axis does not pick
// (both programs of a pair write the same elements), or the grid's extent
// is odd, or the program id is read otherwise (a scalar index): each left.
// CHECK-LABEL: pallas.kernel @same_elements
// CHECK-SAME: grid = [8]
// CHECK-LABEL: pallas.kernel @odd_grid
// CHECK-SAME: grid = [7]
// CHECK-LABEL: pallas.kernel @scalar_index
// CHECK-SAME: grid = [8]
pallas.kernel @same_elements(
    %x: !pallas.ref<256x64xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %o: !pallas.ref<32x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 64], block = [32, 64], index_map = affine_map<(p) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "same_elements", grid = [8], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %xb = pallas.load %x[ds(%start, 32), :] : !pallas.ref<256x64xf32> -> tensor<32x64xf32>
  pallas.store %o[...], %xb : !pallas.ref<32x64xf32>, tensor<32x64xf32>
  pallas.return
}

pallas.kernel @odd_grid(
    %x: !pallas.ref<224x64xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [224, 64], block = [224, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %o: !pallas.ref<32x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [224, 64], block = [32, 64], index_map = affine_map<(p) -> (p, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "odd_grid", grid = [7], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %xb = pallas.load %x[ds(%start, 32), :] : !pallas.ref<224x64xf32> -> tensor<32x64xf32>
  pallas.store %o[...], %xb : !pallas.ref<32x64xf32>, tensor<32x64xf32>
  pallas.return
}

pallas.kernel @scalar_index(
    %x: !pallas.ref<256x64xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 64], block = [256, 64], index_map = affine_map<(p) -> (0, 0)>>},
    %o: !pallas.ref<32x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [256, 64], block = [32, 64], index_map = affine_map<(p) -> (p, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "scalar_index", grid = [8], num_warps = 4>} {
  %pid = pallas.program_id 0 : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %row = pallas.load %x[%start, :] : !pallas.ref<256x64xf32>, i32 -> tensor<64xf32>
  %b = pallas.broadcast %row dims [1] : tensor<64xf32> -> tensor<32x64xf32>
  pallas.store %o[...], %b : !pallas.ref<32x64xf32>, tensor<32x64xf32>
  pallas.return
}
