// RUN: pallas-opt %s -pallas-merge-programs -split-input-file | FileCheck %s
// RUN: pallas-opt %s -pallas-merge-programs=warps=16 -split-input-file | FileCheck %s --check-prefix=W16

// A GEMM of 128 x 128 tiles (conformance matmul_kloop's form: slicing loads
// in a K loop) runs as 128 x 256: y's and z's blocks double along N, which
// j picks; j's extent halves; x, indexed without j, stays.
// CHECK-LABEL: pallas.kernel @kloop
// CHECK-SAME: %arg0: !pallas.ref<128x4096xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [128, 4096], index_map = affine_map<(d0, d1) -> (d0, 0)>>}
// CHECK-SAME: %arg1: !pallas.ref<4096x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [4096, 256], index_map = affine_map<(d0, d1) -> (0, d1)>>}
// CHECK-SAME: %arg2: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 256], index_map = affine_map<(d0, d1) -> (d0, d1)>>}
// CHECK-SAME: pallas.launch = #pallas.launch<symbol = "kloop", grid = [32, 16], num_warps = 8>
// CHECK: arith.constant dense<0.000000e+00> : tensor<128x256xf32>
// CHECK: pallas.load %arg1[ds(%{{.*}}, 64), :] : !pallas.ref<4096x256xbf16> -> tensor<64x256xbf16>
// CHECK: pallas.dot {{.*}} -> tensor<128x256xf32>
// CHECK: pallas.store %arg2[...], %{{.*}} : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
pallas.kernel @kloop(%x: !pallas.ref<128x4096xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [128, 4096], index_map = affine_map<(i, j) -> (i, 0)>>},
                     %y: !pallas.ref<4096x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [4096, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                     %z: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "kloop", grid = [32, 32], num_warps = 8>} {
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc_i = %acc0) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %k, %c64 : i32
    %a = pallas.load %x[:, ds(%off, 64)] : !pallas.ref<128x4096xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %y[ds(%off, 64), :] : !pallas.ref<4096x128xbf16> -> tensor<64x128xbf16>
    %p = pallas.dot %a, %b acc %acc_i : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %p : tensor<128x128xf32>
  }
  %r = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  pallas.store %z[...], %r : !pallas.ref<128x128xbf16>, tensor<128x128xbf16>
  pallas.return
}

// -----

// A kernel that reads j's program id would see half of them: left alone.
// CHECK-LABEL: pallas.kernel @reads_j
// CHECK-SAME: grid = [32, 32]
pallas.kernel @reads_j(%x: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                       %y: !pallas.ref<256x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 4096], block = [256, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                       %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "reads_j", grid = [32, 32], num_warps = 8>} {
  %j = pallas.program_id 1 : i32
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x128xbf16> -> tensor<256x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x256xbf16>, tensor<256x128xbf16> -> tensor<128x128xf32>
  %jf = arith.sitofp %j : i32 to f32
  %jb = pallas.broadcast %jf : f32 -> tensor<128x128xf32>
  %q = arith.addf %p, %jb : tensor<128x128xf32>
  pallas.store %z[...], %q : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// An odd extent along j (33 programs) cannot pair up: left alone.
// CHECK-LABEL: pallas.kernel @odd
// CHECK-SAME: grid = [32, 33]
pallas.kernel @odd(%x: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                   %y: !pallas.ref<256x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 4224], block = [256, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                   %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4224], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "odd", grid = [32, 33], num_warps = 8>} {
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x128xbf16> -> tensor<256x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x256xbf16>, tensor<256x128xbf16> -> tensor<128x128xf32>
  pallas.store %z[...], %p : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// N blocks picked by 2 * j (every other block): two programs are not two
// neighbouring blocks: left alone.
// CHECK-LABEL: pallas.kernel @strided
// CHECK-SAME: grid = [32, 16]
pallas.kernel @strided(%x: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                       %y: !pallas.ref<256x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 4096], block = [256, 128], index_map = affine_map<(i, j) -> (0, j * 2)>>},
                       %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (i, j * 2)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "strided", grid = [32, 16], num_warps = 8>} {
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x128xbf16> -> tensor<256x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x256xbf16>, tensor<256x128xbf16> -> tensor<128x128xf32>
  pallas.store %z[...], %p : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// An atomic would run in merged programs differently ordered: left alone;
// so is a tile of 128 x 256 already (only 128 x 128 tiles merge).
// CHECK-LABEL: pallas.kernel @atomic
// CHECK-SAME: grid = [32, 32]
pallas.kernel @atomic(%x: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                      %y: !pallas.ref<256x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 4096], block = [256, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                      %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "atomic", grid = [32, 32], num_warps = 8>} {
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x128xbf16> -> tensor<256x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x256xbf16>, tensor<256x128xbf16> -> tensor<128x128xf32>
  %old = pallas.atomic_rmw add %z[...], %p : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}
// CHECK-LABEL: pallas.kernel @wide
// CHECK-SAME: grid = [32, 16]
pallas.kernel @wide(%x: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                    %y: !pallas.ref<256x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 4096], block = [256, 256], index_map = affine_map<(i, j) -> (0, j)>>},
                    %z: !pallas.ref<128x256xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 256], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "wide", grid = [32, 16], num_warps = 8>} {
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x256xbf16> -> tensor<256x256xbf16>
  %p = pallas.dot %a, %b : tensor<128x256xbf16>, tensor<256x256xbf16> -> tensor<128x256xf32>
  pallas.store %z[...], %p : !pallas.ref<128x256xf32>, tensor<128x256xf32>
  pallas.return
}

// -----

// A while loop carries a block-shaped tensor the analysis does not follow:
// its dims stay, so the N dim they meet does too (no crash, no merge).
// CHECK-LABEL: pallas.kernel @while_carry
// CHECK-SAME: grid = [32, 32]
pallas.kernel @while_carry(%x: !pallas.ref<128x256xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 256], block = [128, 256], index_map = affine_map<(i, j) -> (i, 0)>>},
                           %y: !pallas.ref<256x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [256, 4096], block = [256, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                           %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "while_carry", grid = [32, 32], num_warps = 8>} {
  %a = pallas.load %x[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %y[...] : !pallas.ref<256x128xbf16> -> tensor<256x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x256xbf16>, tensor<256x128xbf16> -> tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %r:2 = scf.while (%i = %c0, %t = %p) : (i32, tensor<128x128xf32>) -> (i32, tensor<128x128xf32>) {
    %go = arith.cmpi slt, %i, %c3 : i32
    scf.condition(%go) %i, %t : i32, tensor<128x128xf32>
  } do {
  ^bb0(%i2: i32, %t2: tensor<128x128xf32>):
    %c1 = arith.constant 1 : i32
    %n = arith.addi %i2, %c1 : i32
    %d = arith.addf %t2, %p : tensor<128x128xf32>
    scf.yield %n, %d : i32, tensor<128x128xf32>
  }
  pallas.store %z[...], %r#1 : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// Rows and columns in one class (a dot added to its own transpose's
// layout through broadcasts), both picked by the one axis: doubling both
// would cover blocks no program wrote: left alone.
// W16-LABEL: pallas.kernel @diagonal
// W16-SAME: grid = [32, 32]
pallas.kernel @diagonal(%x: !pallas.ref<128x4096xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [128, 4096], index_map = affine_map<(i, j) -> (j, 0)>>},
                        %y: !pallas.ref<4096x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 4096], block = [4096, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                        %v: !pallas.ref<128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [4096], block = [128], index_map = affine_map<(i, j) -> (j)>>},
                        %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (j, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "diagonal", grid = [32, 32], num_warps = 16>} {
  %a = pallas.load %x[...] : !pallas.ref<128x4096xbf16> -> tensor<128x4096xbf16>
  %b = pallas.load %y[...] : !pallas.ref<4096x128xbf16> -> tensor<4096x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x4096xbf16>, tensor<4096x128xbf16> -> tensor<128x128xf32>
  %vv = pallas.load %v[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %r = pallas.broadcast %vv dims [0] : tensor<128xf32> -> tensor<128x128xf32>
  %c = pallas.broadcast %vv dims [1] : tensor<128xf32> -> tensor<128x128xf32>
  %s = arith.addf %p, %r : tensor<128x128xf32>
  %t = arith.addf %s, %c : tensor<128x128xf32>
  pallas.store %z[...], %t : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// -----

// A one-step dot of whole blocks (K = 128, no loop): pallas-split-programs
// would cut a 128 x 256 program back into two: left alone.
// CHECK-LABEL: pallas.kernel @short_k
// CHECK-SAME: grid = [32, 32]
pallas.kernel @short_k(%x: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4096, 128], block = [128, 128], index_map = affine_map<(i, j) -> (i, 0)>>},
                       %y: !pallas.ref<128x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [128, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (0, j)>>},
                       %z: !pallas.ref<128x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4096, 4096], block = [128, 128], index_map = affine_map<(i, j) -> (i, j)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "short_k", grid = [32, 32], num_warps = 8>} {
  %a = pallas.load %x[...] : !pallas.ref<128x128xbf16> -> tensor<128x128xbf16>
  %b = pallas.load %y[...] : !pallas.ref<128x128xbf16> -> tensor<128x128xbf16>
  %p = pallas.dot %a, %b : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
  pallas.store %z[...], %p : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}
