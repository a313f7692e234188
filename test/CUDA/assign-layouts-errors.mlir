// RUN: pallas-opt %s -split-input-file -verify-diagnostics --pallas-assign-layouts

// pallas-assign-layouts' diagnostic: the CTA's warps come from the
// function's #pallas.launch.

tt.func public @no_launch(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tt.dot' op is in a function without a pallas.launch (its num_warps)}}
  %d = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  tt.return %d : tensor<32x32xf32>
}
