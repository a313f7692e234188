// RUN: pallas-opt %s -split-input-file -verify-diagnostics -convert-pallas-to-mosaic

// convert-pallas-to-mosaic's diagnostics: the kernel's signature and index
// functions, then ops and accesses Mosaic cannot express.

// expected-error @+1 {{the mosaic target takes blocked kernels; do not run pallas-expand-grid before it}}
pallas.kernel @k(%x: !pallas.ref<32xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4], expanded>} {
  pallas.return
}

// -----

// expected-error @+1 {{argument #0 must be a ref}}
pallas.kernel @k(%s: !pallas.semaphore {pallas.block_spec = #pallas.block_spec<prefetch "s", shape = [], block = []>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

// expected-error @+1 {{index function @nowhere not found or not a single block}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_fn = @nowhere>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

func.func @f(%b: i32, %i: i32) -> (i32, i32) {
  return %b, %i : i32, i32
}
// expected-error @+1 {{index functions under vmap are not supported by the mosaic target}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [2, 32], block = [1, 8], squeezed = [0], index_fn = @f>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [2, 4], batch_axes = 1>} {
  pallas.return
}

// -----

// expected-error @+1 {{takes 2 arguments; the grid and scalar prefetch give 1}}
func.func @f(%i: i32, %j: i32) -> (i32) {
  return %i : i32
}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_fn = @f>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

// expected-error @+1 {{argument #1 must be a scalar-prefetch ref}}
func.func @f(%i: i32, %j: i32) -> (i32) {
  return %i : i32
}
pallas.kernel @k(%rows: !pallas.ref<4xi32, smem> {pallas.block_spec = #pallas.block_spec<prefetch "rows", shape = [4], block = [4]>},
                 %x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_fn = @f>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

// expected-error @+1 {{index map of argument #0 does not match the grid and the array rank}}
pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i, j) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  // expected-error @+1 {{grid axis 1 does not exist}}
  %p = pallas.program_id 1 : i32
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  // expected-error @+1 {{grid axis 2 does not exist}}
  %n = pallas.num_programs 2 : i32
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  %v = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  // expected-error @+1 {{'pallas.debug_print' op debug_print is not supported by the mosaic target}}
  pallas.debug_print "v = {}", %v : tensor<8xf32>
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32, 128], block = [8, 128], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  // expected-error @+1 {{strided slices are not supported by the mosaic target}}
  %v = pallas.load %x[ds(0, 4, 2), :] : !pallas.ref<8x128xf32> -> tensor<4x128xf32>
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8x128xi32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32, 128], block = [8, 128], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  %t = arith.constant dense<1> : tensor<8xi32>
  // expected-error @+1 {{gathers and scatters (tensor indexers) are not supported by the mosaic target}}
  %v = pallas.load %x[%t, 0] : !pallas.ref<8x128xi32>, tensor<8xi32> -> tensor<8xi32>
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32, 128], block = [8, 128], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  %v = pallas.load %x[...] : !pallas.ref<8x128xf32> -> tensor<8x128xf32>
  // expected-error @+1 {{concatenate is not supported by the mosaic target}}
  %c = pallas.concatenate %v, %v {dim = 0 : i64} : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<16x128xf32>
  pallas.return
}

// -----

// A region holding a loop that carries a ref (a run_scoped's buffers in a
// loop step are fine: examples/matmul_dma).
pallas.kernel @k(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>},
                 %o: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = arith.constant true
  // expected-error @+1 {{'scf.if' op carries a ref through a region; the mosaic target cannot lower that}}
  scf.if %t {
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> (!pallas.ref<8x128xf32>) {
      scf.yield %a : !pallas.ref<8x128xf32>
    }
  }
  pallas.return
}

// -----

// Refs only go to pallas ops: not through an scf.if.
pallas.kernel @k(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [32, 128], block = [8, 128], index_map = affine_map<(i) -> (i, 0)>>},
                 %y: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input "y", shape = [32, 128], block = [8, 128], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [4]>} {
  %c = arith.constant true
  %r = scf.if %c -> !pallas.ref<8x128xf32> {
    // expected-error @+1 {{'scf.yield' op passes a ref to an op the mosaic target cannot lower}}
    scf.yield %x : !pallas.ref<8x128xf32>
  } else {
    scf.yield %y : !pallas.ref<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @k(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [8, 128], block = [8, 128], index_map = affine_map<() -> (0, 0)>>},
                 %o: !pallas.ref<8x64xf32> {pallas.block_spec = #pallas.block_spec<output "o", shape = [8, 64], block = [8, 64], index_map = affine_map<() -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = []>} {
  %v = pallas.load %x[...] : !pallas.ref<8x128xf32> -> tensor<8x128xf32>
  // expected-error @+1 {{'tensor.extract_slice' op a slice other than a static window of unit stride is not supported by the mosaic target}}
  %s = tensor.extract_slice %v[0, 0] [8, 64] [1, 2] : tensor<8x128xf32> to tensor<8x64xf32>
  pallas.store %o[...], %s : !pallas.ref<8x64xf32>, tensor<8x64xf32>
  pallas.return
}
