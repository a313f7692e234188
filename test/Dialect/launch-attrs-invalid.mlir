// RUN: pallas-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of #pallas.launch and #pallas.block_spec: their
// syntax, their own verifiers, and where the dialect lets them stand.

// expected-error @+1 {{unknown #pallas.launch field 'grids'}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grids = [1]>} {
  pallas.return
}

// -----

// expected-error @+1 {{field 'grid' given twice}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], grid = [2]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch needs a symbol and a grid}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<grid = [1]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch needs a non-empty symbol}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "", grid = [1]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch grid sizes must be at least 1}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4, 0]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch has 1 dimension_semantics for a grid of rank 2}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4, 4], dimension_semantics = [parallel]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch batch_axes 2 exceeds the grid's rank 1}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4], batch_axes = 2>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch num_warps must be a power of two from 1 to 32, got 0}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4], num_warps = 0>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch num_warps must be a power of two from 1 to 32, got 6}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4], num_warps = 6>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch num_stages must be from 1 to 8, got 0}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4], num_stages = 0>} {
  pallas.return
}

// -----

// A program order lists the leading parallel axes, each once.
// expected-error @+1 {{#pallas.launch program_order must list each of the grid's 2 leading parallel axes once}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4, 4, 4], dimension_semantics = [parallel, parallel, arbitrary], program_order = [2, 0, 1]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch program_order must list each of the grid's 2 leading parallel axes once}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4, 4], program_order = [1, 1]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch program_group must be 0, or at least 2 with a program_order of two axes or more}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4, 4], program_group = 8>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch program_group must be 0, or at least 2 with a program_order of two axes or more}}
pallas.kernel @k() attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4, 4], program_order = [1, 0], program_group = 1>} {
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.launch' must be a #pallas.launch}}
pallas.kernel @k() attributes {pallas.launch = 4 : i64} {
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.launch' belongs on a kernel function}}
module attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
}

// -----

// expected-error @+1 {{argument #1 has no pallas.block_spec (a kernel with a launch describes every argument)}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8]>}, %y: !pallas.ref<8xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

// The launch is one typed attribute; loose launch fields are rejected.
// expected-error @+1 {{unknown pallas attribute 'pallas.grid'}}
pallas.kernel @k() attributes {pallas.grid = array<i64: 4>} {
  pallas.return
}

// -----

// expected-error @+1 {{unknown pallas argument attribute 'pallas.role'}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.role = "input"}) {
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.block_spec' of argument #0 must be a #pallas.block_spec}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = "input"}) {
  pallas.return
}

// -----

// expected-error @+1 {{unknown #pallas.block_spec field 'blocks'}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, blocks = [4]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{expected one of [prefetch, input, output, scratch, size] for role of a kernel argument}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<inout, shape = [4], block = [4]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.block_spec: scratch has no array, block or index map}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<scratch, shape = [4], block = [4]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.block_spec: block rank 1 differs from the array rank 2}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4, 4], block = [4]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.block_spec: squeezed dim 1 is not a block dim of size 1}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4, 4], block = [4, 4], squeezed = [1]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.block_spec: block dims must be at least 1}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4, 4], block = [0, 4]>}) {
  pallas.return
}

// -----

func.func @f(%i: i32) -> i32 {
  return %i : i32
}
// expected-error @+1 {{#pallas.block_spec: index_map and index_fn exclude each other}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4], block = [4], index_map = affine_map<(i) -> (i)>, index_fn = @f>}) {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.block_spec: the index map gives 2 block indices for rank 1}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4], block = [4], index_map = affine_map<(i) -> (i, 0)>>}) {
  pallas.return
}

// -----

// expected-error @+1 {{argument #0 ('x') is '!pallas.ref<8xf32>', neither its block nor its array}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [16], block = [4]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{argument #0 ('s') must be a ref}}
pallas.kernel @k(%s: !pallas.semaphore {pallas.block_spec = #pallas.block_spec<input "s", shape = [], block = []>}) {
  pallas.return
}

// -----

// Symbolic sizes: `?` dims need names, names need the launch's sizes.
// expected-error @+1 {{#pallas.block_spec: array dim 0 is ? without a size name}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [?], block = [4]>}) {
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op argument #0 has size 'N', which is not among the launch's sizes}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [?], block = [4], size_names = ["N"]>}) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op grid size 'cdiv(Q, 4)' names 'Q', which is not among the launch's sizes}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [?], block = [4], size_names = ["N"]>}) attributes {pallas.launch = #pallas.launch<symbol = "k", sizes = ["N"], grid = [?], grid_sizes = ["cdiv(Q, 4)"]>} {
  pallas.return
}

// -----

// expected-error @+1 {{#pallas.launch grid axis 0 is ? without a size expression}}
pallas.kernel @k(%x: !pallas.ref<4xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4], block = [4]>}) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [?]>} {
  pallas.return
}
