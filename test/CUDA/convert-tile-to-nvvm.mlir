// RUN: pallas-opt %s --convert-tile-to-nvvm | FileCheck %s
// RUN: sed '/@ew(/s/grid = \[1\]>/grid = [1], num_warps = 1>/' %s | pallas-opt --convert-tile-to-nvvm | FileCheck %s --check-prefix=ONEWARP

// convert-tile-to-nvvm alone on tile IR (the tt form pallasc -t triton
// writes; the mma-layout functions as pallas-assign-layouts leaves them).
// Every tt.func becomes a kernel of the one gpu.module; each kernel records
// how it is launched (threads, grid, shared memory) in its
// #pallas_gpu.launch_config, and its block and grid sizes for the code.

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @pallas_kernels {
// CHECK: llvm.mlir.global external @__pallas_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

// Elementwise over 512 elements on 128 threads: four consecutive elements
// per thread, one vector<4xf32> each; a 16-byte vector access when the chunk
// is contiguous and aligned (checked at run time), scalar accesses otherwise.
// No shared memory.
// CHECK-LABEL: gpu.func @ew(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, pallas_gpu.launch_config = #pallas_gpu.launch_config<threads = 128, grid = [1, 1, 1], shared_bytes = 0>}
// CHECK: %[[TIDX:.*]] = gpu.thread_id x
// CHECK: %[[TID:.*]] = arith.index_castui %[[TIDX]] : index to i32
// CHECK: gpu.block_id x
// CHECK: arith.muli %[[TID]], %{{.*}} : i32
// CHECK: arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
// ONEWARP-LABEL: gpu.func @ew
// ONEWARP-SAME: known_block_size = array<i32: 32, 1, 1>
// ONEWARP-SAME: #pallas_gpu.launch_config<threads = 32,
// ONEWARP: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
module {
  tt.func public @ew(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "ew", grid = [1]>} {
    %pid = tt.get_program_id x : i32
    %c512 = arith.constant 512 : i32
    %base = arith.muli %pid, %c512 : i32
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %b = tt.splat %base : i32 -> tensor<512xi32>
    %i = arith.addi %b, %r : tensor<512xi32>
    %px0 = tt.splat %x : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %px = tt.addptr %px0, %i : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    %v = tt.load %px : tensor<512x!tt.ptr<f32>>
    %w = arith.addf %v, %v : tensor<512xf32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %po = tt.addptr %po0, %i : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    tt.store %po, %w : tensor<512x!tt.ptr<f32>>
    tt.return
  }

// A whole-tensor reduction: per-thread fold, then across the lanes of a
// warp with xor shuffles (16, 8, 4, 2, 1), then across warps through
// shared memory.
// CHECK-LABEL: gpu.func @maxall
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: arith.maximumf
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
  tt.func public @maxall(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "maxall", grid = [1]>} {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %px0 = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %px = tt.addptr %px0, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %v = tt.load %px : tensor<1024x!tt.ptr<f32>>
    %m = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.maximumf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<1024xf32>) -> f32
    tt.store %o, %m : !tt.ptr<f32>
    tt.return
  }

// A reduction along the rows of an 8x64 tensor: shuffles too.
// CHECK-LABEL: gpu.func @rowsum
// CHECK: gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf
// CHECK: gpu.return
  tt.func public @rowsum(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "rowsum", grid = [1]>} {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %px0 = tt.splat %x : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %px = tt.addptr %px0, %r : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    %v = tt.load %px : tensor<512x!tt.ptr<f32>>
    %m = tt.reshape %v : tensor<512xf32> -> tensor<8x64xf32>
    %s = "tt.reduce"(%m) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x64xf32>) -> tensor<8xf32>
    %ro = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %po = tt.addptr %po0, %ro : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    tt.store %po, %s : tensor<8x!tt.ptr<f32>>
    tt.return
  }

// Broadcasting loaded data (not index arithmetic) exchanges it through
// shared memory: the 64-element source is written between two barriers,
// then each thread reads the elements it holds of the 32x64 result.
// CHECK-LABEL: gpu.func @bcast
// CHECK-SAME: shared_bytes = 256>
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @__pallas_smem : !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
  tt.func public @bcast(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "bcast", grid = [1]>} {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %px0 = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %px = tt.addptr %px0, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %v = tt.load %px : tensor<64x!tt.ptr<f32>>
    %row = tt.reshape %v : tensor<64xf32> -> tensor<1x64xf32>
    %b = tt.broadcast %row : tensor<1x64xf32> -> tensor<32x64xf32>
    %flat = tt.reshape %b : tensor<32x64xf32> -> tensor<2048xf32>
    %ro = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<2048x!tt.ptr<f32>>
    %po = tt.addptr %po0, %ro : tensor<2048x!tt.ptr<f32>>, tensor<2048xi32>
    tt.store %po, %flat : tensor<2048x!tt.ptr<f32>>
    tt.return
  }

// Broadcasting index arithmetic recomputes each element instead: no shared
// memory, no barrier.
// CHECK-LABEL: gpu.func @bcast_index
// CHECK-SAME: shared_bytes = 0>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
  tt.func public @bcast_index(%o: !tt.ptr<i32>) attributes {pallas.launch = #pallas.launch<symbol = "bcast_index", grid = [1]>} {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %row = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b = tt.broadcast %row : tensor<1x64xi32> -> tensor<32x64xi32>
    %flat = tt.reshape %b : tensor<32x64xi32> -> tensor<2048xi32>
    %ro = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
    %po0 = tt.splat %o : !tt.ptr<i32> -> tensor<2048x!tt.ptr<i32>>
    %po = tt.addptr %po0, %ro : tensor<2048x!tt.ptr<i32>>, tensor<2048xi32>
    tt.store %po, %flat : tensor<2048x!tt.ptr<i32>>
    tt.return
  }

// A transpose goes through shared memory: 16x32 f32 is 2048 bytes.
// CHECK-LABEL: gpu.func @trans
// CHECK-SAME: shared_bytes = 2048>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
  tt.func public @trans(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "trans", grid = [1]>} {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %px0 = tt.splat %x : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %px = tt.addptr %px0, %r : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    %v = tt.load %px : tensor<512x!tt.ptr<f32>>
    %m = tt.reshape %v : tensor<512xf32> -> tensor<16x32xf32>
    %t = tt.trans %m {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<32x16xf32>
    %flat = tt.reshape %t : tensor<32x16xf32> -> tensor<512xf32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %po = tt.addptr %po0, %r : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    tt.store %po, %flat : tensor<512x!tt.ptr<f32>>
    tt.return
  }

// A bf16 dot with its accumulator in the mma layout: A and B through
// shared memory, a loop over K in steps of 16, one mma.sync m16n8k16 per
// 16x8 tile. A 64x32 result over four warps is 16 f32 per thread; the
// tensor.cast to the blocked layout exchanges it through shared memory
// (column pairs in, runs of four out, 16-byte units swizzled by row).
// CHECK-LABEL: gpu.func @dot_mma
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>) : i32 {
// CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME: -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: scf.yield %{{.*}} : vector<16xf32>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: gpu.return
  tt.func public @dot_mma(%a: !tt.ptr<bf16>, %b: !tt.ptr<bf16>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "dot_mma", grid = [1]>} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
    %ra = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %pa0 = tt.splat %a : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
    %pa = tt.addptr %pa0, %ra : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
    %x = tt.load %pa : tensor<1024x!tt.ptr<bf16>>
    %xa = tt.reshape %x : tensor<1024xbf16> -> tensor<64x16xbf16>
    %rb = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %pb0 = tt.splat %b : !tt.ptr<bf16> -> tensor<512x!tt.ptr<bf16>>
    %pb = tt.addptr %pb0, %rb : tensor<512x!tt.ptr<bf16>>, tensor<512xi32>
    %y = tt.load %pb : tensor<512x!tt.ptr<bf16>>
    %yb = tt.reshape %y : tensor<512xbf16> -> tensor<16x32xbf16>
    %d = tt.dot %xa, %yb, %zero : tensor<64x16xbf16> * tensor<16x32xbf16> -> tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
    %plain = tensor.cast %d : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>> to tensor<64x32xf32>
    %flat = tt.reshape %plain : tensor<64x32xf32> -> tensor<2048xf32>
    %ro = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<2048x!tt.ptr<f32>>
    %po = tt.addptr %po0, %ro : tensor<2048x!tt.ptr<f32>>, tensor<2048xi32>
    tt.store %po, %flat : tensor<2048x!tt.ptr<f32>>
    tt.return
  }

// A loop-carried accumulator in the mma layout stays in registers across
// iterations: the outer loop carries vector<16xf32>, with no shared memory
// between the mma loop's result and the yield; the cast back to the blocked
// layout comes after the loop.
// CHECK-LABEL: gpu.func @kloop
// CHECK: %[[OUT:[0-9]+]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CARRIED:arg[0-9]+]] = %{{.*}}) -> (vector<16xf32>) : i32 {
// CHECK-NOT: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: %[[MMA:[0-9]+]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[CARRIED]]) -> (vector<16xf32>) : i32 {
// CHECK: nvvm.mma.sync
// CHECK: scf.yield %{{.*}} : vector<16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[MMA]] : vector<16xf32>
// CHECK-NEXT: }
// CHECK: gpu.barrier
// CHECK: vector.extract %[[OUT]][0] : f32 from vector<16xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: gpu.return
  tt.func public @kloop(%a: !tt.ptr<bf16>, %b: !tt.ptr<bf16>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "kloop", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
    %ra = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %pa0 = tt.splat %a : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
    %pa = tt.addptr %pa0, %ra : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
    %rb = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %pb0 = tt.splat %b : !tt.ptr<bf16> -> tensor<512x!tt.ptr<bf16>>
    %pb = tt.addptr %pb0, %rb : tensor<512x!tt.ptr<bf16>>, tensor<512xi32>
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%arg = %zero) -> (tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>)  : i32 {
      %x = tt.load %pa : tensor<1024x!tt.ptr<bf16>>
      %xa = tt.reshape %x : tensor<1024xbf16> -> tensor<64x16xbf16>
      %y = tt.load %pb : tensor<512x!tt.ptr<bf16>>
      %yb = tt.reshape %y : tensor<512xbf16> -> tensor<16x32xbf16>
      %d = tt.dot %xa, %yb, %arg : tensor<64x16xbf16> * tensor<16x32xbf16> -> tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
      scf.yield %d : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
    }
    %plain = tensor.cast %acc : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>> to tensor<64x32xf32>
    %flat = tt.reshape %plain : tensor<64x32xf32> -> tensor<2048xf32>
    %ro = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<2048x!tt.ptr<f32>>
    %po = tt.addptr %po0, %ro : tensor<2048x!tt.ptr<f32>>, tensor<2048xi32>
    tt.store %po, %flat : tensor<2048x!tt.ptr<f32>>
    tt.return
  }
}
