// RUN: pallas-opt %s -pallas-two-warpgroups -split-input-file | FileCheck %s

// Flash attention forward as JAX's mha runs it at D = 64 without block
// sizes: 128-row query blocks on 4 warps. The loop carries the output
// accumulator (64 values a thread) and makes 128 x 128 f32 scores and
// their exponentials (128 each): more than 240 a thread. Every dot has
// 128 rows: the program runs on 8 warps.
// CHECK-LABEL: pallas.kernel @attention
// CHECK-SAME: num_warps = 8
pallas.kernel @attention(%q: !pallas.ref<128x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>},
                         %k: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                         %o: !pallas.ref<128x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [128, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "attention", grid = [8], num_warps = 4>} {
  %qb = pallas.load %q[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %acc = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %off = arith.muli %i, %c128 : i32
    %kb = pallas.load %k[ds(%off, 128), :] : !pallas.ref<1024x64xbf16> -> tensor<128x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
    %p = math.exp2 %s : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
    %pv = pallas.dot %pb, %kb : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %next = arith.addf %a, %pv : tensor<128x64xf32>
    scf.yield %next : tensor<128x64xf32>
  }
  pallas.store %o[...], %acc : !pallas.ref<128x64xf32>, tensor<128x64xf32>
  pallas.return
}

// -----

// A GEMM's K loop on 4 warps: the 128 x 128 accumulator (128 values a
// thread) takes each dot in place. Left on 4 warps.
// CHECK-LABEL: pallas.kernel @gemm
// CHECK-NOT: num_warps = 8
pallas.kernel @gemm(%a: !pallas.ref<128x1024xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 1024], block = [128, 1024], index_map = affine_map<(i) -> (i, 0)>>},
                    %b: !pallas.ref<1024x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 128], block = [1024, 128], index_map = affine_map<(i) -> (0, 0)>>},
                    %o: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 128], block = [128, 128], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "gemm", grid = [8], num_warps = 4>} {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %acc = scf.for %i = %c0 to %c16 step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %i, %c64 : i32
    %ab = pallas.load %a[:, ds(%off, 64)] : !pallas.ref<128x1024xbf16> -> tensor<128x64xbf16>
    %bb = pallas.load %b[ds(%off, 64), :] : !pallas.ref<1024x128xbf16> -> tensor<64x128xbf16>
    %d = pallas.dot %ab, %bb : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %next = arith.addf %x, %d : tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  pallas.store %o[...], %acc : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// The same attention on 64-row query blocks: it fits (and 8 warps would
// split 64-row dots by columns). Left on 4 warps.
// CHECK-LABEL: pallas.kernel @attention_64
// CHECK-NOT: num_warps = 8
pallas.kernel @attention_64(%q: !pallas.ref<64x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [64, 64], index_map = affine_map<(i) -> (i, 0)>>},
                            %k: !pallas.ref<1024x64xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [1024, 64], block = [1024, 64], index_map = affine_map<(i) -> (0, 0)>>},
                            %o: !pallas.ref<64x64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [1024, 64], block = [64, 64], index_map = affine_map<(i) -> (i, 0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "attention_64", grid = [16], num_warps = 4>} {
  %qb = pallas.load %q[...] : !pallas.ref<64x64xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %acc = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %off = arith.muli %i, %c128 : i32
    %kb = pallas.load %k[ds(%off, 128), :] : !pallas.ref<1024x64xbf16> -> tensor<128x64xbf16>
    %s = pallas.dot %qb, %kb {transpose_rhs} : tensor<64x64xbf16>, tensor<128x64xbf16> -> tensor<64x128xf32>
    %p = math.exp2 %s : tensor<64x128xf32>
    %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
    %pv = pallas.dot %pb, %kb : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %next = arith.addf %a, %pv : tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  pallas.store %o[...], %acc : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}
