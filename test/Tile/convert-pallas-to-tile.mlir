// convert-pallas-to-tile: each expanded kernel becomes a `tt.func public`
// taking a 16-divisible !tt.ptr per array; the leading parallel grid axes
// are tt.get_program_id x/y/z (folded into x, and recovered by div/rem,
// beyond three), sequential axes loops inside the program carrying the
// scratch refs, and accesses tensors of pointers under masks that keep
// them inside their arrays. A program order runs one linear id x from
// which the axes' ids derive. The CUDA targets' options: with
// logical-program-ids, one id per axis stays (with tt.num_programs), array
// arguments get their shape (tt.shape) and masks that only keep an access
// inside its (static or symbolic) array are marked tt.bounds_mask. (The dot limits:
// convert-pallas-to-tile-dot-limits.mlir.)
// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-tile -split-input-file | FileCheck %s
// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-tile="logical-program-ids=true triton-dot-limits=false" -split-input-file | FileCheck %s --check-prefix=CUDA

// 30 elements in blocks of 8: the last block's edge is masked off; masked
// lanes read 0.
// CHECK-LABEL: tt.func public @add(
// CHECK-SAME: %[[X:.*]]: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %[[O:.*]]: !tt.ptr<f32> {tt.divisibility = 16 : i32})
// CHECK-SAME: attributes {pallas.launch = #pallas.launch<symbol = "add", grid = [4], expanded>}
// CHECK: %[[PID:.*]] = tt.get_program_id x : i32
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK: %[[R:.*]] = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
// CHECK: %[[IDX:.*]] = arith.addi %{{.*}}, %[[R]] : tensor<8xi32>
// CHECK: %[[LO:.*]] = arith.cmpi sge, %[[IDX]], %{{.*}} : tensor<8xi32>
// CHECK: %[[N:.*]] = tt.splat %c30_i32 : i32 -> tensor<8xi32>
// CHECK-NEXT: %[[HI:.*]] = arith.cmpi slt, %[[IDX]], %[[N]] : tensor<8xi32>
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : tensor<8xi1>
// CHECK-NEXT: %[[BASE:.*]] = tt.splat %[[X]] : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: %[[P:.*]] = tt.addptr %[[BASE]], %[[IDX]] : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NEXT: %[[V:.*]] = tt.load %[[P]], %[[IN]], %[[ZERO]] : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[V]], %[[V]]
// CHECK: tt.splat %[[O]]
// CHECK: tt.store %{{.*}}, %[[W]], %{{.*}} : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: tt.return
// CUDA-LABEL: tt.func public @add(
// CUDA-SAME: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 30>}, %{{.*}}: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 30>})
// CUDA: tt.get_program_id x {tt.num_programs = 4 : i64} : i32
// The load's mask only keeps the block in the array (zeros outside): the
// TMA may copy it (pallas-stage-loads), its bounds doing the same.
// CUDA: tt.load {{.*}} {tt.bounds_mask}
// So is the store's (the TMA skips what lies outside: pallas-tma-stores).
// CUDA: tt.store {{.*}} {tt.bounds_mask}
// CUDA: tt.return
pallas.kernel @add(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [30], block = [8], index_map = affine_map<(i) -> (i)>>},
                   %o: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [30], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "add", grid = [4]>} {
  %v = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  pallas.store %o[...], %w : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}

// -----

// A (parallel, arbitrary) grid: program id x, and a loop over the
// arbitrary axis that carries the scratch ref's value (zeroed first); the
// scratch ref is no argument.
// CHECK-LABEL: tt.func public @rows(
// CHECK-SAME: %{{.*}}: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %{{.*}}: !tt.ptr<f32> {tt.divisibility = 16 : i32})
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NEXT: tt.get_program_id x : i32
// CHECK-NOT: tt.get_program_id
// CHECK: %[[C3:.*]] = arith.constant 3 : i32
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C3]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<8xf32>)
// CHECK: %[[V:.*]] = tt.load %{{.*}} : tensor<8x16x!tt.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = "tt.reduce"(%[[V]]) <{axis = 1 : i32}>
// CHECK: %[[N:.*]] = arith.addf %[[ACC]], %[[S]] : tensor<8xf32>
// CHECK: tt.store %{{.*}}, %[[N]], %{{.*}} : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: scf.yield %[[N]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tt.return
pallas.kernel @rows(%x: !pallas.ref<8x16xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [16, 48], block = [8, 16], index_map = affine_map<(i, k) -> (i, k)>>},
                    %o: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [16], block = [8], index_map = affine_map<(i, k) -> (i)>>},
                    %acc: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "rows", grid = [2, 3], dimension_semantics = [parallel, arbitrary]>} {
  %v = pallas.load %x[...] : !pallas.ref<8x16xf32> -> tensor<8x16xf32>
  %s = pallas.reduce sum %v [1] : tensor<8x16xf32> -> tensor<8xf32>
  %a = pallas.load %acc[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %n = arith.addf %a, %s : tensor<8xf32>
  pallas.store %acc[...], %n : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.store %o[...], %n : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}

// -----

// A symbolic size (N, a multiple of 4) is an i32 argument after the arrays,
// as 16-divisible as its multiple promises; the bounds compare with it. For
// the CUDA targets the arrays' shapes name it (-1 - 2: argument 2), and
// the load and store, masked only by the array's bounds, say so.
// CHECK-LABEL: tt.func public @scale(
// CHECK-SAME: %{{.*}}: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %{{.*}}: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %[[N:.*]]: i32 {tt.divisibility = 4 : i32})
// CHECK: %[[NS:.*]] = tt.splat %[[N]] : i32 -> tensor<8xi32>
// CHECK-NEXT: arith.cmpi slt, %{{.*}}, %[[NS]] : tensor<8xi32>
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x!tt.ptr<f32>>
// CUDA-LABEL: tt.func public @scale(
// CUDA-SAME: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: -3>}, %{{.*}}: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: -3>}, %{{.*}}: i32 {tt.divisibility = 4 : i32})
// CUDA: tt.get_program_id x : i32
// CUDA: tt.load %{{.*}}, %{{.*}}, %{{.*}} {tt.bounds_mask} : tensor<8x!tt.ptr<f32>>
// CUDA: tt.store %{{.*}}, %{{.*}}, %{{.*}} {tt.bounds_mask} : tensor<8x!tt.ptr<f32>>
pallas.kernel @scale(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [?], block = [8], size_names = ["N"], index_map = affine_map<(i) -> (i)>>},
                     %o: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<output "o", shape = [?], block = [8], size_names = ["N"], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "scale", sizes = ["N"], size_multiples = [4], grid = [?], grid_sizes = ["cdiv(N, 8)"]>} {
  %v = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  pallas.store %o[...], %w : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}

// -----

// Four parallel axes fold into x; each axis's id is recovered by rem and
// div, the last axis fastest.
// CHECK-LABEL: tt.func public @folded(
// CHECK: %[[X:.*]] = tt.get_program_id x : i32
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[D:.*]] = arith.remsi %[[X]], %[[C5]] : i32
// CHECK-NEXT: %[[C5B:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[R1:.*]] = arith.divsi %[[X]], %[[C5B]] : i32
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[C:.*]] = arith.remsi %[[R1]], %[[C4]] : i32
// CHECK-NEXT: %[[C4B:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[R2:.*]] = arith.divsi %[[R1]], %[[C4B]] : i32
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[B:.*]] = arith.remsi %[[R2]], %[[C3]] : i32
// CHECK-NEXT: %[[C3B:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[A:.*]] = arith.divsi %[[R2]], %[[C3B]] : i32
// CHECK-NOT: tt.get_program_id
// CHECK: tt.return
// CUDA-LABEL: tt.func public @folded(
// CUDA: tt.get_program_id x : i32
// CUDA-NOT: tt.get_program_id
// CUDA: tt.return
pallas.kernel @folded(%x: !pallas.ref<1x1x1x8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [2, 3, 4, 8], block = [1, 1, 1, 8], index_map = affine_map<(a, b, c, d) -> (a, b, c, 0)>>},
                      %o: !pallas.ref<1x1x1x8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [2, 3, 4, 8], block = [1, 1, 1, 8], index_map = affine_map<(a, b, c, d) -> (a, b, c, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "folded", grid = [2, 3, 4, 5]>} {
  %v = pallas.load %x[...] : !pallas.ref<1x1x1x8xf32> -> tensor<1x1x1x8xf32>
  pallas.store %o[...], %v : !pallas.ref<1x1x1x8xf32>, tensor<1x1x1x8xf32>
  pallas.return
}

// -----

// Program order [1, 0] over a 4 x 2 grid: one linear id x, axis 1 fastest
// (j = x mod 2, i = x / 2). With logical-program-ids, x and y stay one per
// axis, with the number of programs along each.
// CHECK-LABEL: tt.func public @ordered(
// CHECK: %[[L:.*]] = tt.get_program_id x : i32
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[J:.*]] = arith.remui %[[L]], %[[C2]] : i32
// CHECK-NEXT: %[[C2B:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[I:.*]] = arith.divui %[[L]], %[[C2B]] : i32
// CHECK-NOT: tt.get_program_id
// CHECK: arith.muli %[[I]], %{{.*}} : i32
// CHECK: arith.muli %[[J]], %{{.*}} : i32
// CUDA-LABEL: tt.func public @ordered(
// CUDA: %[[I:.*]] = tt.get_program_id x {tt.num_programs = 4 : i64} : i32
// CUDA-NEXT: %[[J:.*]] = tt.get_program_id y {tt.num_programs = 2 : i64} : i32
// CUDA-NEXT: arith.constant 8 : i32
// CUDA-NEXT: arith.muli %[[I]], %{{.*}} : i32
// CUDA-NOT: arith.remui
// CUDA: arith.muli %[[J]], %{{.*}} : i32
pallas.kernel @ordered(%x: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [32, 16], block = [8, 8], index_map = affine_map<(i, j) -> (i, j)>>},
                       %o: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [32, 16], block = [8, 8], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "ordered", grid = [4, 2], program_order = [1, 0]>} {
  %v = pallas.load %x[...] : !pallas.ref<8x8xf32> -> tensor<8x8xf32>
  pallas.store %o[...], %v : !pallas.ref<8x8xf32>, tensor<8x8xf32>
  pallas.return
}

