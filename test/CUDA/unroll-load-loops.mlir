// RUN: pallas-opt %s --pallas-unroll-load-loops | FileCheck %s

// A loop of one bf16 load per thread (16 x 16 over 256 threads) and a
// few adds: unrolled by 8 (the most), its eight loads issued together.
// CHECK-LABEL: tt.func @small_loads
// CHECK: scf.for %{{.*}} = %c0_i32 to %c512_i32 step %c8_i32
// CHECK-COUNT-8: tt.load
// CHECK-NOT: tt.load
// CHECK: scf.yield
tt.func @small_loads(%ptrs: tensor<16x16x!tt.ptr<bf16>>, %x: tensor<16x16xf32>) -> tensor<16x16xf32>
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c512 = arith.constant 512 : i32
  %c4096 = arith.constant 4096 : i32
  %r = scf.for %i = %c0 to %c512 step %c1 iter_args(%acc = %x) -> (tensor<16x16xf32>) : i32 {
    %o = arith.muli %i, %c4096 : i32
    %s = tt.splat %o : i32 -> tensor<16x16xi32>
    %p = tt.addptr %ptrs, %s : tensor<16x16x!tt.ptr<bf16>>, tensor<16x16xi32>
    %v = tt.load %p : tensor<16x16x!tt.ptr<bf16>>
    %f = arith.extf %v : tensor<16x16xbf16> to tensor<16x16xf32>
    %n = arith.addf %acc, %f : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tt.return %r : tensor<16x16xf32>
}

// Four f32 a thread (16 bytes): unrolled by 8, 128 bytes in flight.
// Two bf16 a thread in 24 iterations: by 8, the most that leaves two
// unrolled iterations.
// CHECK-LABEL: tt.func @factors
// CHECK: scf.for %{{.*}} = %c0_i32 to %c512_i32 step %c8_i32
// CHECK-COUNT-8: tt.load
// CHECK-NOT: tt.load
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %c0_i32 to %c24_i32 step %c8_i32
// CHECK-COUNT-8: tt.load
// CHECK-NOT: tt.load
// CHECK: scf.yield
tt.func @factors(%wide: tensor<32x32x!tt.ptr<f32>>, %ptrs: tensor<16x32x!tt.ptr<bf16>>,
                 %x: tensor<32x32xf32>, %y: tensor<16x32xf32>) -> (tensor<32x32xf32>, tensor<16x32xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c24 = arith.constant 24 : i32
  %c512 = arith.constant 512 : i32
  %r = scf.for %i = %c0 to %c512 step %c1 iter_args(%acc = %x) -> (tensor<32x32xf32>) : i32 {
    %s = tt.splat %i : i32 -> tensor<32x32xi32>
    %p = tt.addptr %wide, %s : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %v = tt.load %p : tensor<32x32x!tt.ptr<f32>>
    %n = arith.addf %acc, %v : tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  %r2 = scf.for %i = %c0 to %c24 step %c1 iter_args(%acc = %y) -> (tensor<16x32xf32>) : i32 {
    %s = tt.splat %i : i32 -> tensor<16x32xi32>
    %p = tt.addptr %ptrs, %s : tensor<16x32x!tt.ptr<bf16>>, tensor<16x32xi32>
    %v = tt.load %p : tensor<16x32x!tt.ptr<bf16>>
    %f = arith.extf %v : tensor<16x32xbf16> to tensor<16x32xf32>
    %n = arith.addf %acc, %f : tensor<16x32xf32>
    scf.yield %n : tensor<16x32xf32>
  }
  tt.return %r, %r2 : tensor<32x32xf32>, tensor<16x32xf32>
}

// Left alone: loads of more than 4 elements per thread (a row of 4096 on
// 256 threads), and a loop of fewer than 8 iterations.
// CHECK-LABEL: tt.func @left_alone
// CHECK: scf.for %{{.*}} step %c1_i32
// CHECK: scf.for %{{.*}} step %c1_i32
tt.func @left_alone(%row: tensor<4096x!tt.ptr<bf16>>, %ptrs: tensor<16x16x!tt.ptr<bf16>>,
                    %x: tensor<4096xf32>, %y: tensor<16x16xf32>) -> (tensor<4096xf32>, tensor<16x16xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %x) -> (tensor<4096xf32>) : i32 {
    %s = tt.splat %i : i32 -> tensor<4096xi32>
    %p = tt.addptr %row, %s : tensor<4096x!tt.ptr<bf16>>, tensor<4096xi32>
    %v = tt.load %p : tensor<4096x!tt.ptr<bf16>>
    %f = arith.extf %v : tensor<4096xbf16> to tensor<4096xf32>
    %n = arith.addf %acc, %f : tensor<4096xf32>
    scf.yield %n : tensor<4096xf32>
  }
  %r2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %y) -> (tensor<16x16xf32>) : i32 {
    %s = tt.splat %i : i32 -> tensor<16x16xi32>
    %p = tt.addptr %ptrs, %s : tensor<16x16x!tt.ptr<bf16>>, tensor<16x16xi32>
    %v = tt.load %p : tensor<16x16x!tt.ptr<bf16>>
    %f = arith.extf %v : tensor<16x16xbf16> to tensor<16x16xf32>
    %n = arith.addf %acc, %f : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tt.return %r, %r2 : tensor<4096xf32>, tensor<16x16xf32>
}

// A loop its program may skip (pallas-skip-masked-out-loops: all 512
// trips or none, the bound a select of 512 and the lower bound) is
// unrolled over 512 and gets the select back: 64 unrolled trips or none.
// Its twin with a select of another value is left alone.
// CHECK-LABEL: tt.func @skippable
// CHECK: %[[BOUND:.*]] = arith.select %{{.*}}, %c512_i32, %c0_i32
// CHECK: scf.for %{{.*}} = %c0_i32 to %[[BOUND]] step %c8_i32
// CHECK-COUNT-8: tt.load
// CHECK-NOT: tt.load
// CHECK: scf.yield
// CHECK: %[[OTHER:.*]] = arith.select %{{.*}}, %c512_i32, %c7_i32
// CHECK: scf.for %{{.*}} = %c0_i32 to %[[OTHER]] step %c1_i32
// CHECK-COUNT-1: tt.load
// CHECK-NOT: tt.load
// CHECK: scf.yield
tt.func @skippable(%ptrs: tensor<16x16x!tt.ptr<bf16>>, %x: tensor<16x16xf32>, %work: i1) -> (tensor<16x16xf32>, tensor<16x16xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1], num_warps = 8>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %c512 = arith.constant 512 : i32
  %c4096 = arith.constant 4096 : i32
  %ub = arith.select %work, %c512, %c0 : i32
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %x) -> (tensor<16x16xf32>) : i32 {
    %o = arith.muli %i, %c4096 : i32
    %s = tt.splat %o : i32 -> tensor<16x16xi32>
    %p = tt.addptr %ptrs, %s : tensor<16x16x!tt.ptr<bf16>>, tensor<16x16xi32>
    %v = tt.load %p : tensor<16x16x!tt.ptr<bf16>>
    %f = arith.extf %v : tensor<16x16xbf16> to tensor<16x16xf32>
    %n = arith.addf %acc, %f : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  %other = arith.select %work, %c512, %c7 : i32
  %q = scf.for %i = %c0 to %other step %c1 iter_args(%acc = %x) -> (tensor<16x16xf32>) : i32 {
    %o = arith.muli %i, %c4096 : i32
    %s = tt.splat %o : i32 -> tensor<16x16xi32>
    %p = tt.addptr %ptrs, %s : tensor<16x16x!tt.ptr<bf16>>, tensor<16x16xi32>
    %v = tt.load %p : tensor<16x16x!tt.ptr<bf16>>
    %f = arith.extf %v : tensor<16x16xbf16> to tensor<16x16xf32>
    %n = arith.addf %acc, %f : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tt.return %r, %q : tensor<16x16xf32>, tensor<16x16xf32>
}
