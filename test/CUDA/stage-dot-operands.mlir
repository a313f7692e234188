// pallas-stage-loads stages a K loop's dot operands in shared-memory rings:
// copies num-stages - 1 iterations ahead (two before the loop), a wait at
// the top of each iteration, the next copy into the buffer read the
// iteration before, the dot reading the current one, and a last wait after
// the loop.
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=232448" --canonicalize | FileCheck %s

// Each ring's tile carries the shared-memory layout of the dot reading it:
// wgmma's 128-byte swizzle where rows are 128 bytes, else core matrices.
// CHECK: %[[RA:.*]] = pallas_gpu.alloc_ring : <3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
// CHECK: %[[RB:.*]] = pallas_gpu.alloc_ring : <3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RA]][%c0_i32] if %true
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RB]][%c0_i32] if %true
// CHECK: pallas_gpu.async_commit
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RA]][%c1_i32] if %true
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RB]][%c1_i32] if %true
// CHECK: pallas_gpu.async_commit
// CHECK: scf.for %[[K:.*]] = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[SLOT:.*]] = %c0_i32) -> (tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>, i32)
// CHECK-NEXT: pallas_gpu.async_wait 1
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[SLOT]], %c0_i32
// CHECK: %[[DOWN:.*]] = arith.subi %[[SLOT]], %c1_i32
// CHECK: %[[PREV:.*]] = arith.select %[[FIRST]], %c2_i32, %[[DOWN]]
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c2_i32
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[AHEAD]], %c4_i32
// CHECK: arith.minsi %[[AHEAD]], %c3_i32
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RA]][%[[PREV]]] if %[[VALID]]
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RB]][%[[PREV]]] if %[[VALID]]
// CHECK-NEXT: pallas_gpu.async_commit
// CHECK-NEXT: %[[A:.*]] = pallas_gpu.ring_read %[[RA]][%[[SLOT]]]
// CHECK-NEXT: %[[B:.*]] = pallas_gpu.ring_read %[[RB]][%[[SLOT]]]
// CHECK-NEXT: tt.dot %[[A]], %[[B]], %[[ACC]]
// CHECK-NOT: tt.load
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: pallas_gpu.async_wait 0

// Rings that would not fit in 3/4 of shared-bytes get fewer stages (two:
// one copy ahead, waiting for all before each iteration) ...
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=30000" | FileCheck %s --check-prefix=TWO
// TWO: pallas_gpu.alloc_ring : <2, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
// TWO: scf.for
// TWO-NEXT: pallas_gpu.async_wait 0
// ... or, where two buffers of every block do not fit, rings for the
// blocks that still fit, taken in order (A here), while the others (B)
// are loaded into registers one iteration ahead ...
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=20000" | FileCheck %s --check-prefix=RINGA
// RINGA: %[[RA:.*]] = pallas_gpu.alloc_ring : <3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
// RINGA-NOT: pallas_gpu.alloc_ring
// RINGA: scf.for {{.*}} iter_args({{.*}}, %[[B:[^,]*]] = %{{[^)]*}})
// RINGA: %[[A:.*]] = pallas_gpu.ring_read %[[RA]]
// RINGA: tt.dot %[[A]], %[[B]]
// ... or none, and the loads are issued one iteration ahead into registers.
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=10000" | FileCheck %s --check-prefix=REGS
// A dot off the tensor cores (no mma encoding) does not read shared memory
// in place either.
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-stage-loads="shared-bytes=232448" | FileCheck %s --check-prefix=REGS
// REGS-NOT: {{(= |^ *)pallas_gpu\.}}
// REGS: tt.load
// REGS: scf.for {{.*}} iter_args(%{{[^,]*}}, %[[A:[^,]*]] = %{{[^,]*}}, %[[B:[^,]*]] = %{{[^)]*}})
// REGS: tt.dot %[[A]], %[[B]]
// REGS-NOT: {{(= |^ *)pallas_gpu\.}}

// Lowered: cp.async (8-byte pieces: each thread's chunk of these small
// tiles), cp.async groups and waits, and wgmma reading the buffers in
// place: A (64-byte rows) as core matrices (leading offset 144, stride
// 576), B (128-byte rows) with the 128-byte swizzle (bit 62; leading
// offset 4096 between 64-column atoms, stride 1024 between 8-row groups).
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-assign-layouts=wgmma=true --pallas-stage-loads="shared-bytes=232448" --canonicalize --convert-tile-to-nvvm --canonicalize | FileCheck %s --check-prefix=NVVM
// The zero accumulator starts in the wgmma layout with no exchange; one
// barrier comes before the first copy, as the rings share memory with the
// exchange area (used after the loop).
// NVVM-NOT: gpu.barrier
// NVVM: arith.constant dense<0.000000e+00> : vector<32xf32>
// NVVM: gpu.barrier
// NVVM-NOT: gpu.barrier
// NVVM: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca
// NVVM: nvvm.cp.async.commit.group
// NVVM: nvvm.cp.async.commit.group
// NVVM: scf.for
// NVVM-NEXT: nvvm.cp.async.wait.group 1
// NVVM-NEXT: gpu.barrier
// NVVM: nvvm.cp.async.shared.global
// NVVM: nvvm.cp.async.commit.group
// NVVM-NOT: llvm.load
// NVVM-NOT: llvm.store
// Each operand's descriptor is built once; later k steps add to its start
// address field.
// NVVM: arith.ori %{{.*}}, %c4611686293322072064_i64
// NVVM: arith.ori %{{.*}}, %c154619412480_i64
// NVVM: nvvm.wgmma.fence.aligned
// NVVM: nvvm.wgmma.mma_async
// NVVM: arith.addi %{{.*}}, %c{{[0-9]+}}_i64 : i64
// NVVM: nvvm.wgmma.mma_async
// NVVM: nvvm.wgmma.wait.group.sync.aligned 0
// NVVM: scf.yield
// NVVM: nvvm.cp.async.wait.group 0
// NVVM-NEXT: gpu.barrier

// On mma.sync (no wgmma): the same copies, ldmatrix from the buffers.
// RUN: pallas-opt %S/Inputs/dot_loop.mlir --pallas-assign-layouts --pallas-stage-loads="shared-bytes=232448" --canonicalize --convert-tile-to-nvvm --canonicalize | FileCheck %s --check-prefix=MMA
// MMA: scf.for
// MMA-NEXT: nvvm.cp.async.wait.group 1
// MMA: nvvm.cp.async.shared.global
// MMA-NOT: llvm.store
// MMA: nvvm.ldmatrix
// MMA: nvvm.mma.sync
