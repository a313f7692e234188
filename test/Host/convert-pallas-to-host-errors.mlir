// RUN: pallas-opt %s -pallas-expand-grid -convert-pallas-to-host -split-input-file -verify-diagnostics
// Every error convert-pallas-to-host reports for a kernel it cannot lower,
// at the op it concerns.

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
