// RUN: pallas-opt %s -split-input-file -verify-diagnostics --convert-tile-to-nvvm

// convert-tile-to-nvvm's diagnostics on its inputs. (Its "internal error"
// diagnostics guard invariants of the passes before it and have no input.)

// expected-error @+1 {{'tt.func' op has no pallas.launch (its num_warps)}}
tt.func public @no_launch(%p: !tt.ptr<f32>) {
  tt.return
}

// -----

// expected-error @+1 {{num_warps must be a power of two from 1 to 32 on CUDA targets, got 3}}
tt.func public @three_warps(%p: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 3>} {
  tt.return
}

// -----

// expected-error @+1 {{kernel argument of type 'tensor<4xf32>' is not supported on CUDA targets}}
tt.func public @tensor_arg(%t: tensor<4xf32>) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  tt.return
}
