// RUN: pallas-opt %s -split-input-file | pallas-opt -split-input-file | FileCheck %s

// #pallas.launch and #pallas.block_spec print back as parsed (defaults left
// out, fields in a fixed order) and survive a second round trip.

// CHECK-LABEL: pallas.kernel @all_fields
// CHECK-SAME: pallas.block_spec = #pallas.block_spec<prefetch "rows", shape = [4], block = [4], index_map = affine_map<(d0, d1) -> (0)>>
// CHECK-SAME: pallas.block_spec = #pallas.block_spec<input "x", shape = [8, 128], block = [1, 128], squeezed = [0], index_fn = @row_of>
// CHECK-SAME: pallas.block_spec = #pallas.block_spec<output "o", shape = [8, 256], block = [8, 128], index_map = affine_map<(d0, d1) -> (0, d1)>>
// CHECK-SAME: pallas.block_spec = #pallas.block_spec<scratch>
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "sym", grid = [2, 4], dimension_semantics = [parallel, arbitrary], batch_axes = 1, num_warps = 8, num_stages = 2>
func.func @row_of(%i: i32, %j: i32, %rows: !pallas.ref<4xi32, smem>) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  return %c0, %c0 : i32, i32
}
pallas.kernel @all_fields(
    %rows: !pallas.ref<4xi32, smem> {pallas.block_spec = #pallas.block_spec<prefetch "rows", shape = [4], block = [4], index_map = affine_map<(i, j) -> (0)>>},
    %x: !pallas.ref<128xf32> {pallas.block_spec = #pallas.block_spec<input "x", index_fn = @row_of, squeezed = [0], block = [1, 128], shape = [8, 128]>},
    %o: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<output "o", shape = [8, 256], block = [8, 128], index_map = affine_map<(i, j) -> (0, j)>>},
    %acc: !pallas.ref<128xf32, vmem> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<num_stages = 2, num_warps = 8, batch_axes = 1, grid = [2, 4], symbol = "sym", dimension_semantics = [parallel, arbitrary]>} {
  pallas.return
}

// -----

// Defaults are left out; `expanded` is a flag; refs may be whole arrays.
// CHECK-LABEL: pallas.kernel @defaults
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "defaults", grid = [], expanded>
pallas.kernel @defaults(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128]>})
    attributes {pallas.launch = #pallas.launch<symbol = "defaults", grid = [], batch_axes = 0, num_warps = 4, num_stages = 3, expanded>} {
  pallas.return
}

// -----

// A program order (pallas-program-order) and its groups.
// CHECK-LABEL: pallas.kernel @ordered
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "ordered", grid = [32, 16, 2], dimension_semantics = [parallel, parallel, arbitrary], program_order = [1, 0], program_group = 8>
pallas.kernel @ordered() attributes {pallas.launch = #pallas.launch<program_group = 8, program_order = [1, 0], symbol = "ordered", grid = [32, 16, 2], dimension_semantics = [parallel, parallel, arbitrary]>} {
  pallas.return
}
