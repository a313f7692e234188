// RUN: pallas-opt %s -pallas-program-order -split-input-file | FileCheck %s
// RUN: pallas-opt %s -pallas-program-order=group=0 -split-input-file | FileCheck %s --check-prefix=NOGROUP

// Attention: every input depends on the head (b); K and V stay the same
// along the query blocks (i), which therefore go fastest.
// CHECK-LABEL: pallas.kernel @attention
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "attention", grid = [64, 32], program_order = [1, 0]>
// NOGROUP-LABEL: pallas.kernel @attention
// NOGROUP-SAME: program_order = [1, 0]>
pallas.kernel @attention(%q: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 4096, 128], block = [1, 128, 128], squeezed = [0], index_map = affine_map<(b, i) -> (b, i, 0)>>},
                         %k: !pallas.ref<4096x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 4096, 128], block = [1, 4096, 128], squeezed = [0], index_map = affine_map<(b, i) -> (b, 0, 0)>>},
                         %o: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<output, shape = [64, 4096, 128], block = [1, 128, 128], squeezed = [0], index_map = affine_map<(b, i) -> (b, i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "attention", grid = [64, 32]>} {
  pallas.return
}

// -----

// A GEMM: A's row blocks stay the same along j, B's column blocks along i,
// as many bytes each: i first (the grid's order breaks the tie), in groups
// of 8 row blocks.
// CHECK-LABEL: pallas.kernel @gemm
// CHECK-SAME: grid = [32, 16], program_order = [0, 1], program_group = 8>
// Without groups that is the grid's own order: nothing to set.
// NOGROUP-LABEL: pallas.kernel @gemm
// NOGROUP-SAME: pallas.launch = #pallas.launch<symbol = "gemm", grid = [32, 16]>}
pallas.kernel @gemm(%x: !pallas.ref<128x4096xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [128, 4096], index_map = affine_map<(i, j) -> (i, 0)>>},
                    %y: !pallas.ref<4096x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [4096, 256], index_map = affine_map<(i, j) -> (0, j)>>},
                    %z: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 256], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "gemm", grid = [32, 16]>} {
  pallas.return
}

// -----

// A's blocks (f32), which stay the same along j, are larger than B's
// (bf16): j first. Four column blocks are not more than a group: no groups.
// CHECK-LABEL: pallas.kernel @gemm_wide
// CHECK-SAME: grid = [32, 4], program_order = [1, 0]>
pallas.kernel @gemm_wide(%x: !pallas.ref<128x512xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 512], block = [128, 512], index_map = affine_map<(i, j) -> (i, 0)>>},
                         %y: !pallas.ref<512x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [512, 512], block = [512, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                         %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 512], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "gemm_wide", grid = [32, 4]>} {
  pallas.return
}

// -----

// Three parallel axes (a split adds one); a sequential axis after them is
// not part of the order.
// CHECK-LABEL: pallas.kernel @three
// CHECK-SAME: grid = [4, 8, 2, 16], dimension_semantics = [parallel, parallel, parallel, arbitrary], program_order = [1, 0, 2]>
pallas.kernel @three(%x: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4, 128, 2048], block = [1, 128, 128], squeezed = [0], index_map = affine_map<(b, i, s, k) -> (b, 0, k)>>},
                     %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4, 1024, 256], block = [1, 128, 128], squeezed = [0], index_map = affine_map<(b, i, s, k) -> (b, i, s)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "three", grid = [4, 8, 2, 16], dimension_semantics = [parallel, parallel, parallel, arbitrary]>} {
  pallas.return
}

// -----

// Left alone: every input block differs from program to program; one
// parallel axis; index functions (which may read anything).
// CHECK-LABEL: pallas.kernel @elementwise
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "elementwise", grid = [8, 8]>}
pallas.kernel @elementwise(%x: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 1024], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>},
                           %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 1024], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "elementwise", grid = [8, 8]>} {
  pallas.return
}

// -----

// CHECK-LABEL: pallas.kernel @one_axis
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "one_axis", grid = [8, 4], dimension_semantics = [parallel, arbitrary]>}
pallas.kernel @one_axis(%x: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [128, 128], block = [128, 128], index_map = affine_map<(i, k) -> (0, 0)>>},
                        %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 128], block = [128, 128], index_map = affine_map<(i, k) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "one_axis", grid = [8, 4], dimension_semantics = [parallel, arbitrary]>} {
  pallas.return
}

// -----

// An index function that never uses j gives the same block along j (the
// grouped GEMM's row blocks): j runs fastest, as for an affine map.
func.func private @rows(%i: i32, %j: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  return %i, %c0 : i32, i32
}
// CHECK-LABEL: pallas.kernel @index_fn
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "index_fn", grid = [8, 8], program_order = [1, 0]>}
pallas.kernel @index_fn(%x: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 128], block = [128, 128], index_fn = @rows>},
                        %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 1024], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "index_fn", grid = [8, 8]>} {
  pallas.return
}

// -----

// Programs along the query blocks (i) differ in length: the key loop runs
// to the diagonal. Four heads (128 programs / 32 query blocks) side by
// side run through all their query blocks, then the next four.
// CHECK-LABEL: pallas.kernel @causal
// CHECK-SAME: grid = [64, 32], program_order = [0, 1], program_group = 4>
// NOGROUP-LABEL: pallas.kernel @causal
// NOGROUP-SAME: grid = [64, 32], program_order = [0, 1], program_group = 4>
pallas.kernel @causal(%q: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 4096, 128], block = [1, 128, 128], squeezed = [0], index_map = affine_map<(b, i) -> (b, i, 0)>>},
                      %k: !pallas.ref<4096x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 4096, 128], block = [1, 4096, 128], squeezed = [0], index_map = affine_map<(b, i) -> (b, 0, 0)>>},
                      %o: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<output, shape = [64, 4096, 128], block = [1, 128, 128], squeezed = [0], index_map = affine_map<(b, i) -> (b, i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "causal", grid = [64, 32]>} {
  %i = pallas.program_id 1 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.addi %i, %c1 : i32
  scf.for %j = %c0 to %n step %c1 : i32 {
  }
  pallas.return
}

// -----

// One that uses both grid indices (j through a table) may give a new block
// for every program: the order stays.
func.func private @table_rows(%i: i32, %j: i32, %t: !pallas.ref<8xi32, smem>) -> (i32, i32) {
  %r = pallas.load %t[%j] : !pallas.ref<8xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  %s = arith.addi %r, %i : i32
  return %s, %c0 : i32, i32
}
// CHECK-LABEL: pallas.kernel @index_fn_table
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "index_fn_table", grid = [8, 8]>}
pallas.kernel @index_fn_table(%t: !pallas.ref<8xi32, smem> {pallas.block_spec = #pallas.block_spec<prefetch "t", shape = [8], block = [8], index_map = affine_map<(i, j) -> (0)>>},
                              %x: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 128], block = [128, 128], index_fn = @table_rows>},
                              %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 1024], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "index_fn_table", grid = [8, 8]>} {
  pallas.return
}
