// RUN: pallas-opt %s -split-input-file -verify-diagnostics -pallas-expand-grid

// Every diagnostic of pallas-expand-grid: index functions, index maps that
// disagree with the grid or the array, and arguments without a block spec.

// expected-error @+1 {{index map functions must have a single block}}
func.func @two_blocks(%i: i32) -> (i32) {
  cf.br ^bb1
^bb1:
  return %i : i32
}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_fn = @two_blocks>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

// expected-error @+1 {{index function @nowhere not found}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_fn = @nowhere>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

// expected-error @+1 {{index map of argument #0 takes 2 grid indices, the grid has 1}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i, j) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

func.func @one_index(%i: i32) -> (i32) {
  return %i : i32
}
// expected-error @+1 {{index map of argument #0 gives 1 block indices for rank 2}}
pallas.kernel @k(%x: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32, 8], block = [8, 8], index_fn = @one_index>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  // expected-error @+1 {{grid axis 1 does not exist}}
  %n = pallas.num_programs 1 : i32
  pallas.return
}
