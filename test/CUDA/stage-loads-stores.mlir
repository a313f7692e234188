// A loop that stores may still have its loads staged, where no store can
// write what a load reads: a store to the output o while x and y are read
// (a sequential grid axis's last program writing its block) ...
// RUN: sed 's/ALIASED//' %S/Inputs/dot_loop_store.mlir | pallas-opt --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=232448" | FileCheck %s --check-prefix=STAGED
// STAGED: pallas_gpu.alloc_ring
// STAGED: pallas_gpu.alloc_ring
// STAGED: scf.for
// STAGED: pallas_gpu.ring_read
// STAGED: scf.if
// STAGED-NEXT: tt.store
// ... but not where the output shares its buffer with an input the loop
// reads (input_output_aliases: both arguments pallas.aliased): the loads
// stay where they are, in order with the store.
// RUN: sed 's/ALIASED/, pallas.aliased/' %S/Inputs/dot_loop_store.mlir | pallas-opt --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=232448" | FileCheck %s --check-prefix=ALIASED
// ALIASED-NOT: pallas_gpu.alloc_ring
// ALIASED: scf.for
// ALIASED: tt.load
// ALIASED: tt.load
// ALIASED: scf.if
// ALIASED-NEXT: tt.store
