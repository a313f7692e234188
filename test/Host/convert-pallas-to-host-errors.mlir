// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-host -split-input-file -verify-diagnostics
// The errors convert-pallas-to-host reports for a kernel it cannot lower,
// at the op they concern. (Not here: the internal ones for refs it cannot
// trace, which pallas-expand-grid and the ops' verifiers rule out, and a
// semaphore op on a kernel's semaphore argument, which the kernel's
// signature is refused for first.)

// expected-error @+1 {{'pallas.kernel' op must be expanded (pallas-expand-grid) before lowering to the host}}
pallas.kernel @not_expanded(%x: !pallas.ref<8xf32>) {
  pallas.return
}

// -----

pallas.kernel @print(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "p", grid = [1]>} {
  %v = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  // expected-error @+1 {{'pallas.debug_print' op prints scalars of integer and float types on the host target; got 'tensor<8xf32>'}}
  pallas.debug_print "x = {}", %v : tensor<8xf32>
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op the host target does not support semaphore arguments yet}}
pallas.kernel @kernel_semaphore(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>},
                                %s: !pallas.semaphore {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "s", grid = [1]>} {
  pallas.return
}

// -----

func.func private @helper(%x: f32) -> f32

pallas.kernel @call(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "c", grid = [1]>} {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{'func.call' op calls must be inlined before lowering}}
  %r = func.call @helper(%c) : (f32) -> f32
  pallas.return
}

// -----

// Refs only go to pallas ops: not through an scf.if.
pallas.kernel @ref_through_if(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>},
                              %y: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "r", grid = [1]>} {
  %c = arith.constant true
  %r = scf.if %c -> !pallas.ref<8xf32> {
    // expected-error @+1 {{'scf.yield' op passes a ref to an op the host target cannot lower; refs may only be indexed by pallas ops}}
    scf.yield %x : !pallas.ref<8xf32>
  } else {
    scf.yield %y : !pallas.ref<8xf32>
  }
  pallas.return
}

// -----

// Marked expanded without pallas-expand-grid's folding.
pallas.kernel @num_programs(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "n", grid = [1], expanded>} {
  // expected-error @+1 {{'pallas.num_programs' op num_programs must be folded by pallas-expand-grid}}
  %n = pallas.num_programs 0 : i32
  pallas.return
}

// -----

pallas.kernel @atomic_xor(%x: !pallas.ref<8xi32> {pallas.block_spec = #pallas.block_spec<output, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "x", grid = [1]>} {
  %v = arith.constant dense<1> : tensor<8xi32>
  // expected-error @+1 {{'pallas.atomic_rmw' op atomic xor is not supported on the host target yet}}
  %o = pallas.atomic_rmw xor %x[...], %v : !pallas.ref<8xi32>, tensor<8xi32>
  pallas.return
}

// -----

pallas.kernel @atomic_cas(%x: !pallas.ref<8xi32> {pallas.block_spec = #pallas.block_spec<output, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "x", grid = [1]>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'pallas.atomic_cas' op is not supported on the host target yet}}
  %o = pallas.atomic_cas %x[%c0], %c0, %c1 : !pallas.ref<8xi32>, i32, i32
  pallas.return
}
