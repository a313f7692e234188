// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-tile -split-input-file -verify-diagnostics
// Errors convert-pallas-to-tile reports for what Triton cannot express,
// at the op they concern. (Not here: the internal ones for refs it cannot
// trace to an array, which pallas-expand-grid and the ops' verifiers rule
// out.)

// expected-error @+1 {{'pallas.kernel' op must be expanded (pallas-expand-grid) before lowering to Triton}}
pallas.kernel @not_expanded(%x: !pallas.ref<8xf32>) {
  pallas.return
}

// -----

pallas.kernel @odd(%x: !pallas.ref<100xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [100], block = [100], index_map = affine_map<(i) -> (i)>>},
                   %o: !pallas.ref<100xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [100], block = [100], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "odd", grid = [1]>} {
  // expected-error @+1 {{'pallas.load' op produces 'tensor<100xf32>', but the triton target needs power-of-two tensor sizes; use a power-of-two block (with a masked edge)}}
  %v = pallas.load %x[...] : !pallas.ref<100xf32> -> tensor<100xf32>
  pallas.store %o[...], %v : !pallas.ref<100xf32>, tensor<100xf32>
  pallas.return
}

// -----

pallas.kernel @i8_short_k(%a: !pallas.ref<64x16xi8> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 16], block = [64, 16], index_map = affine_map<(i) -> (0, 0)>>},
                          %b: !pallas.ref<16x32xi8> {pallas.block_spec = #pallas.block_spec<input, shape = [16, 32], block = [16, 32], index_map = affine_map<(i) -> (0, 0)>>},
                          %o: !pallas.ref<64x32xi32> {pallas.block_spec = #pallas.block_spec<output, shape = [64, 32], block = [64, 32], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "i8k", grid = [1]>} {
  %x = pallas.load %a[...] : !pallas.ref<64x16xi8> -> tensor<64x16xi8>
  %y = pallas.load %b[...] : !pallas.ref<16x32xi8> -> tensor<16x32xi8>
  // expected-error @+1 {{'pallas.dot' op the triton target needs 8-bit dot operands to contract over at least 32 elements (Triton's minimum dot size), got 16}}
  %d = pallas.dot %x, %y : tensor<64x16xi8>, tensor<16x32xi8> -> tensor<64x32xi32>
  pallas.store %o[...], %d : !pallas.ref<64x32xi32>, tensor<64x32xi32>
  pallas.return
}

// -----

pallas.kernel @small(%a: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 8], block = [8, 8], index_map = affine_map<(i) -> (0, 0)>>},
                     %o: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 8], block = [8, 8], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "small", grid = [1]>} {
  %x = pallas.load %a[...] : !pallas.ref<8x8xf32> -> tensor<8x8xf32>
  // expected-error @+1 {{'pallas.dot' op the triton target needs dot operands of at least 16x16, got 'tensor<8x8xf32>'}}
  %d = pallas.dot %x, %x : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  pallas.store %o[...], %d : !pallas.ref<8x8xf32>, tensor<8x8xf32>
  pallas.return
}

// -----

pallas.kernel @print(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "p", grid = [1]>} {
  // expected-error @+1 {{'pallas.debug_print' op is not supported by the triton target yet}}
  pallas.debug_print "hello"
  pallas.return
}

// -----

// Manual DMA: scoped buffers live in registers, so a copy moves an array
// window to or from a buffer (or slices of it); scoped semaphores are
// counters, DMA semaphores only order copies, arrays of semaphores have no
// lowering (a kernel's semaphore arguments: its signature, above).
// expected-error @+1 {{'pallas.kernel' op semaphores are not supported by the triton target}}
pallas.kernel @kernel_semaphore(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>},
                                %s: !pallas.semaphore {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "s", grid = [1]>} {
  pallas.return
}

// -----

pallas.kernel @dma_semaphore_signal(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "s", grid = [1]>} {
  %c1 = arith.constant 1 : i32
  pallas.run_scoped (%s: !pallas.dma_semaphore) {
    // expected-error @+1 {{'pallas.semaphore_signal' op signals, waits on or reads a DMA semaphore, which the triton target does not (its copies are done when they start)}}
    pallas.semaphore_signal %s, %c1 : !pallas.dma_semaphore
  }
  pallas.return
}

// -----

pallas.kernel @semaphore_array(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "s", grid = [1]>} {
  // expected-error @+1 {{'pallas.run_scoped' op takes an array of semaphores ('!pallas.ref<2x!pallas.dma_semaphore>'), which the triton target does not support (single ones it does)}}
  pallas.run_scoped (%s: !pallas.ref<2x!pallas.dma_semaphore>) {
  }
  pallas.return
}

// -----

pallas.kernel @dma_array_to_array(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>},
                                  %o: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "a2a", grid = [1]>} {
  pallas.run_scoped (%s: !pallas.dma_semaphore) {
    // expected-error @+1 {{'pallas.async_copy' op copies between two arrays; the triton target copies between an array window and a scoped buffer}}
    pallas.async_copy %x[...] -> %o[...], %s : !pallas.ref<8x128xf32> -> !pallas.ref<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @dma_buffer_strided(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "strided", grid = [1]>} {
  pallas.run_scoped (%buf: !pallas.ref<16x128xf32, vmem>, %s: !pallas.dma_semaphore) {
    // expected-error @+1 {{'pallas.async_copy' op copies into or out of scoped buffer dim 0 by a strided slice; the triton target takes slices of stride 1 (`:`, ds(start, size)) and indices}}
    pallas.async_copy %x[...] -> %buf[ds(0, 8, 2), :], %s : !pallas.ref<8x128xf32> -> !pallas.ref<16x128xf32, vmem>
  }
  pallas.return
}


// -----

// Scratch and scoped buffers in registers: read and written whole or by
// index along dims (buf[slot]), unmasked.
pallas.kernel @scratch_slice(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "slice", grid = [1]>} {
  pallas.run_scoped (%buf: !pallas.ref<16x128xf32, vmem>) {
    // expected-error @+1 {{'pallas.load' op the triton target keeps scratch and scoped buffers in registers: access them whole or by index along a dim ([...], [i, :]), not by slices (dim 0)}}
    %v = pallas.load %buf[ds(0, 8), :] : !pallas.ref<16x128xf32, vmem> -> tensor<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @scratch_masked_load(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "masked", grid = [1]>} {
  %m = arith.constant dense<true> : tensor<8x128xi1>
  pallas.run_scoped (%buf: !pallas.ref<8x128xf32, vmem>) {
    // expected-error @+1 {{'pallas.load' op the triton target keeps scratch in registers: read it unmasked}}
    %v = pallas.load %buf[...] mask %m : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @scratch_masked_store(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "masked", grid = [1]>} {
  %m = arith.constant dense<true> : tensor<8x128xi1>
  %z = arith.constant dense<0.0> : tensor<8x128xf32>
  pallas.run_scoped (%buf: !pallas.ref<8x128xf32, vmem>) {
    // expected-error @+1 {{'pallas.store' op the triton target keeps scratch in registers: write it unmasked}}
    pallas.store %buf[...], %z mask %m : !pallas.ref<8x128xf32, vmem>, tensor<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @scratch_tensor_index(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "gather", grid = [1]>} {
  %idx = arith.constant dense<1> : tensor<8xi32>
  pallas.run_scoped (%buf: !pallas.ref<8x128xf32, vmem>) {
    // expected-error @+1 {{'pallas.load' op the triton target keeps scratch and scoped buffers in registers: access them whole or by index along a dim ([...], [i, :]), not by tensor indices (dim 0)}}
    %v = pallas.load %buf[%idx, :] : !pallas.ref<8x128xf32, vmem>, tensor<8xi32> -> tensor<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @scratch_slice_store(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "slice", grid = [1]>} {
  %z = arith.constant dense<0.0> : tensor<8x128xf32>
  pallas.run_scoped (%buf: !pallas.ref<16x128xf32, vmem>) {
    // expected-error @+1 {{'pallas.store' op the triton target keeps scratch and scoped buffers in registers: access them whole or by index along a dim ([...], [i, :]), not by slices (dim 0)}}
    pallas.store %buf[ds(8, 8), :], %z : !pallas.ref<16x128xf32, vmem>, tensor<8x128xf32>
  }
  pallas.return
}

// -----

pallas.kernel @buffer_not_pow2(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "odd", grid = [1]>} {
  // expected-error @+1 {{'pallas.run_scoped' op the triton target keeps a scoped buffer in registers, in tensors of power-of-two sizes; got '!pallas.ref<6x128xf32, vmem>'}}
  pallas.run_scoped (%buf: !pallas.ref<6x128xf32, vmem>) {
  }
  pallas.return
}

// -----

// expected-error @+1 {{'pallas.kernel' op the triton target keeps scratch in registers, in tensors of power-of-two sizes; got '!pallas.ref<6xf32>'}}
pallas.kernel @scratch_not_pow2(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>},
                                %s: !pallas.ref<6xf32> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "odd", grid = [1]>} {
  pallas.return
}

// -----

pallas.kernel @dma_semaphore_wait(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "s", grid = [1]>} {
  %c1 = arith.constant 1 : i32
  pallas.run_scoped (%s: !pallas.dma_semaphore) {
    // expected-error @+1 {{'pallas.semaphore_wait' op signals, waits on or reads a DMA semaphore, which the triton target does not (its copies are done when they start)}}
    pallas.semaphore_wait %s, %c1 : !pallas.dma_semaphore
  }
  pallas.return
}

// -----

pallas.kernel @dma_semaphore_read(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "s", grid = [1]>} {
  pallas.run_scoped (%s: !pallas.dma_semaphore) {
    // expected-error @+1 {{'pallas.semaphore_read' op signals, waits on or reads a DMA semaphore, which the triton target does not (its copies are done when they start)}}
    %v = pallas.semaphore_read %s : !pallas.dma_semaphore
  }
  pallas.return
}

// -----

pallas.kernel @semaphore_in_while(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "w", grid = [1]>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  pallas.run_scoped (%s: !pallas.semaphore) {
    // expected-error @+1 {{'scf.while' op writes scratch refs, scoped buffers or semaphores inside a region the triton target cannot carry them through (scf.for and scf.if it can)}}
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %go = arith.cmpi slt, %i, %c1 : i32
      scf.condition(%go) %i : i32
    } do {
    ^bb0(%j: i32):
      pallas.semaphore_signal %s, %c1 : !pallas.semaphore
      %n = arith.addi %j, %c1 : i32
      scf.yield %n : i32
    }
  }
  pallas.return
}

// -----

// Arrays are addressed by 32-bit offsets.
// expected-error @+1 {{'pallas.kernel' op argument #0: arrays of 2^31 elements or more are not supported by the triton target yet}}
pallas.kernel @huge(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [2147483648], block = [8], index_map = affine_map<(i) -> (i)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "h", grid = [1]>} {
  pallas.return
}

// -----

// A y extent beyond 65535 folds the axes into x, whose ids are 32-bit.
// expected-error @+1 {{'pallas.kernel' op the grid's parallel axes hold 9800000000 programs, more than Triton's 2^31 - 1}}
pallas.kernel @many_programs(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i, j, k) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "m", grid = [2, 70000, 70000]>} {
  pallas.return
}

// -----

// A symbolic grid under a program order.
// expected-error @+1 {{'pallas.kernel' op symbolic sizes with more than three parallel grid axes or a program order are not supported yet}}
pallas.kernel @symbolic_ordered(%x: !pallas.ref<8x8xf32> {pallas.block_spec = #pallas.block_spec<input "x", shape = [?, 64], block = [8, 8], size_names = ["N", ""], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "so", sizes = ["N"], grid = [?, 8], grid_sizes = ["cdiv(N, 8)", ""], program_order = [1, 0]>} {
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
    // expected-error @+1 {{'scf.yield' op passes a ref to an op the triton target cannot lower}}
    scf.yield %x : !pallas.ref<8xf32>
  } else {
    scf.yield %y : !pallas.ref<8xf32>
  }
  pallas.return
}

// -----

pallas.kernel @cas_tensor(%x: !pallas.ref<8xi32> {pallas.block_spec = #pallas.block_spec<output, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "x", grid = [1]>} {
  %t = pallas.iota 0 : tensor<8xi32>
  // expected-error @+1 {{'pallas.atomic_cas' op the triton target supports compare-and-swap on one element at a time}}
  %o = pallas.atomic_cas %x[%t], %t, %t : !pallas.ref<8xi32>, tensor<8xi32>, tensor<8xi32>
  pallas.return
}

// -----

// Scratch lives in registers: loads and stores only.
pallas.kernel @scratch_atomic(%x: !pallas.ref<8xi32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>},
                              %s: !pallas.ref<8xi32> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "sa", grid = [1]>} {
  %v = arith.constant dense<1> : tensor<8xi32>
  // expected-error @+1 {{'pallas.atomic_rmw' op is not supported on scratch refs by the triton target}}
  %o = pallas.atomic_rmw add %s[...], %v : !pallas.ref<8xi32>, tensor<8xi32>
  pallas.return
}

// -----

pallas.kernel @concat3(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "c3", grid = [1]>} {
  %v = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  // expected-error @+1 {{'pallas.concatenate' op the triton target concatenates exactly two tensors of the same shape}}
  %c = pallas.concatenate %v, %v, %v, %v {dim = 0 : i64} : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<32xf32>
  pallas.return
}

// -----

pallas.kernel @buffers(%x: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [8, 128], block = [8, 128], index_map = affine_map<(i) -> (0, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "b", grid = [1]>} {
  pallas.run_scoped (%a: !pallas.ref<8x128xf32, vmem>, %b: !pallas.ref<8x128xf32, vmem>, %s: !pallas.dma_semaphore) {
    // expected-error @+1 {{'pallas.async_copy' op copies between two scoped buffers; the triton target copies between an array window and a scoped buffer}}
    pallas.async_copy %a[...] -> %b[...], %s : !pallas.ref<8x128xf32, vmem> -> !pallas.ref<8x128xf32, vmem>
  }
  pallas.return
}

// -----

pallas.kernel @index_iota(%x: !pallas.ref<8xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "ii", grid = [1]>} {
  // expected-error @+1 {{'pallas.iota' op the triton target needs integer iotas}}
  %t = pallas.iota 0 : tensor<8xindex>
  pallas.return
}
