// RUN: pallas-opt %s -split-input-file -verify-diagnostics --convert-tile-to-nvvm | FileCheck %s

// pallas_gpu.own_registers: each element a thread holds copied into a
// register of its own, where the op stands (inline PTX kept in place): a
// 64 x 64 f32 tile on a warpgroup, 32 a thread, the same value in many.
// CHECK-LABEL: gpu.func @own
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $32;\0Amov.b32 $1, $33;{{.*}}mov.b32 $31, $63;\0A", "=f,=f,{{.*}}=f,f,{{.*}},f"
#w = #pallas_gpu.wgmma<warps = 4>
tt.func @own(%p: !tt.ptr<f32>, %v: f32) attributes {pallas.launch = #pallas.launch<symbol = "own", grid = [1], num_warps = 4>} {
  %x = tt.splat %v : f32 -> tensor<1x64xf32>
  %b = tt.broadcast %x : tensor<1x64xf32> -> tensor<64x64xf32, #w>
  %r = pallas_gpu.own_registers %b : tensor<64x64xf32, #w>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #w>
  tt.store %s, %r : tensor<64x64x!tt.ptr<f32>, #w>
  tt.return
}

// -----

// Only f32 tiles (the accumulator starts pallas-issue-dots-together wraps).
#w = #pallas_gpu.wgmma<warps = 4>
tt.func @own_f16(%p: !tt.ptr<f16>, %v: f16) attributes {pallas.launch = #pallas.launch<symbol = "own_f16", grid = [1], num_warps = 4>} {
  %x = tt.splat %v : f16 -> tensor<1x64xf16>
  %b = tt.broadcast %x : tensor<1x64xf16> -> tensor<64x64xf16, #w>
  // expected-error @below {{internal error: pallas_gpu.own_registers takes f32 tiles in registers}}
  // expected-error @below {{failed to legalize operation 'pallas_gpu.own_registers'}}
  %r = pallas_gpu.own_registers %b : tensor<64x64xf16, #w>
  %s = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #w>
  tt.store %s, %r : tensor<64x64x!tt.ptr<f16>, #w>
  tt.return
}
