// RUN: pallas-opt %s -split-input-file -verify-diagnostics --pallas-stage-loads

// pallas-stage-loads' diagnostic: num_warps and num_stages come from the
// function's #pallas.launch.

tt.func public @no_launch(%p: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  // expected-error @+1 {{'scf.for' op is in a function without a pallas.launch (its num_warps and num_stages)}}
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    %x = tt.load %p : !tt.ptr<f32>
  }
  tt.return
}
