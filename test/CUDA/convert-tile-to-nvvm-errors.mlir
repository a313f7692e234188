// RUN: pallas-opt %s -split-input-file -verify-diagnostics --convert-tile-to-nvvm

// convert-tile-to-nvvm's diagnostics on its inputs. (Its "internal error"
// diagnostics guard invariants of the passes before it and have no input.)
// A non-uniform tensor constant of more than 4096 elements (generated: 4097
// bytes, the last 1) is refused; 4096 lower.
// RUN: %python -c "print('tt.func public @k() attributes {pallas.launch = #pallas.launch<symbol = \"k\", grid = [1]>} {\n  %%c = arith.constant dense<\"0x' + '00' * 4096 + '01' + '\"> : tensor<4097xi8>\n  tt.return\n}')" | not pallas-opt --convert-tile-to-nvvm 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: <stdin>:2:8: error: tensor constants of more than 4096 distinct elements are not supported on CUDA targets
// RUN: %python -c "print('tt.func public @k() attributes {pallas.launch = #pallas.launch<symbol = \"k\", grid = [1]>} {\n  %%c = arith.constant dense<\"0x' + '00' * 4095 + '01' + '\"> : tensor<4096xi8>\n  tt.return\n}')" | pallas-opt --convert-tile-to-nvvm | FileCheck %s --check-prefix=LIMIT
// LIMIT: gpu.func @k(

// expected-error @+1 {{'tt.func' op has no pallas.launch (its num_warps)}}
tt.func public @no_launch(%p: !tt.ptr<f32>) {
  tt.return
}


// -----

// expected-error @+1 {{kernel argument of type 'tensor<4xf32>' is not supported on CUDA targets}}
tt.func public @tensor_arg(%t: tensor<4xf32>) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  tt.return
}

// -----

// A producer warpgroup (pallas_gpu.produce) takes 128 threads beside the
// consumers' num_warps: 4 to 28 of them.
// expected-error @+1 {{a producer warpgroup needs num_warps from 4 to 28, got 2}}
tt.func public @producer_two_warps(%p: tensor<64x64x!tt.ptr<bf16>>) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 2>} {
  %ring = pallas_gpu.alloc_ring : <2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma producer : !pallas_gpu.slot_barriers<2>
  pallas_gpu.produce {
    %c0 = arith.constant 0 : i32
    pallas_gpu.tma_copy %p into %ring[%c0] signal %bars {producer, tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<2, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  }
  tt.return
}
