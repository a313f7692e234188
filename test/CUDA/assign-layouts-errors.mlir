// RUN: pallas-opt %s -split-input-file -verify-diagnostics --pallas-assign-layouts

// pallas-assign-layouts' diagnostics: the CTA's warps come from the
// function's #pallas.launch; f8 data is only moved without wgmma (sm_80:
// no f8 conversions, no f8 dots; the wgmma ones in
// assign-layouts-wgmma-errors.mlir).

tt.func public @no_launch(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tt.dot' op is in a function without a pallas.launch (its num_warps)}}
  %d = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  tt.return %d : tensor<32x32xf32>
}

// -----

tt.func public @f8_dot_sm80(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  // expected-error @+1 {{this pallas.dot multiplies f8 operands, which the cuda target runs on sm_90a's wgmma only (sm_80's tensor cores take no f8)}}
  %d = tt.dot %a, %b, %c : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}

// -----

tt.func public @f8_add(%a: tensor<64xf8E4M3FN>) -> tensor<64xf8E4M3FN>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  // expected-error @+1 {{'arith.addf' op computes on 'f8E4M3FN', which sm_80 only loads and stores (f8 conversions and dots need sm_90a)}}
  %s = arith.addf %a, %a : tensor<64xf8E4M3FN>
  tt.return %s : tensor<64xf8E4M3FN>
}

// -----

tt.func public @f8_truncf_sm80(%a: tensor<64xf32>) -> tensor<64xf8E4M3FN>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
  // expected-error @+1 {{'arith.truncf' op computes on 'f8E4M3FN', which sm_80 only loads and stores (f8 conversions and dots need sm_90a)}}
  %s = arith.truncf %a : tensor<64xf32> to tensor<64xf8E4M3FN>
  tt.return %s : tensor<64xf8E4M3FN>
}
