// pallas-tma-stores: a tt.store of a tensor-core accumulator (a tensor.cast
// from its #pallas_gpu.wgmma or #pallas_gpu.mma layout to the blocked one)
// to an unmasked tile of whole rows of an array parameter becomes
// pallas_gpu.tma_store of the accumulator itself, through a tensor map the
// function lists in pallas_gpu.tensor_maps. Stores of other values, to
// other tiles, with a mask of their own or with rows of other than a
// multiple of 128 bytes stay tt.store.
// RUN: pallas-opt %s --pallas-tma-stores | FileCheck %s

// A 64x128 bf16 tile at rows 64 * pid of a 256x128 array (256-byte rows),
// and a 64x64 f32 tile of a 64x128 array: one tensor map each, boxes of 64
// rows by 128 bytes. The layout casts go with the stores.
// CHECK-LABEL: tt.func public @accumulators
// CHECK-SAME: pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 256, row_elements = 128, elem_bytes = 2, box_rows = 64, box_cols = 64>, #pallas_gpu.tensor_map<param = 1, rows = 64, row_elements = 128, elem_bytes = 4, box_rows = 64, box_cols = 32>]
// CHECK-NOT: tensor.cast
// CHECK: %[[P:.*]] = tt.addptr %{{.*}} : tensor<64x128x!tt.ptr<bf16>>, tensor<64x128xi32>
// CHECK-NOT: tensor.cast
// CHECK: pallas_gpu.tma_store %arg2 to %[[P]] {tensor_map = 0 : i64} : tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>>, tensor<64x128x!tt.ptr<bf16>>
// CHECK: %[[Q:.*]] = tt.addptr %{{.*}} : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
// CHECK: pallas_gpu.tma_store %arg3 to %[[Q]] {tensor_map = 1 : i64} : tensor<64x64xf32, #pallas_gpu.mma<warps = [4, 1]>>, tensor<64x64x!tt.ptr<f32>>
// CHECK-NOT: tt.store
// CHECK: tt.return
tt.func public @accumulators(%z: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 256, 128>},
                             %w: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
                             %acc: tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>>,
                             %acc2: tensor<64x64xf32, #pallas_gpu.mma<warps = [4, 1]>>)
    attributes {pallas.launch = #pallas.launch<symbol = "accumulators", grid = [4], expanded>} {
  %pid = tt.get_program_id x {tt.num_programs = 4 : i64} : i32
  %c64 = arith.constant 64 : i32
  %row0 = arith.muli %pid, %c64 : i32
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rs = tt.splat %row0 : i32 -> tensor<64xi32>
  %rows = arith.addi %rs, %r : tensor<64xi32>
  %re = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %ro = arith.muli %re, %c128 : tensor<64x1xi32>
  %rb = tt.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
  %off = arith.addi %rb, %cb : tensor<64x128xi32>
  %zs = tt.splat %z : !tt.ptr<bf16> -> tensor<64x128x!tt.ptr<bf16>>
  %p = tt.addptr %zs, %off : tensor<64x128x!tt.ptr<bf16>>, tensor<64x128xi32>
  %v = tensor.cast %acc : tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>> to tensor<64x128xbf16>
  tt.store %p, %v : tensor<64x128x!tt.ptr<bf16>>
  // w[r, c] for r, c < 64: rows of 128 elements, the tile's 64 columns.
  %re2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ro2 = arith.muli %re2, %c128 : tensor<64x1xi32>
  %rb2 = tt.broadcast %ro2 : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce2 = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb2 = tt.broadcast %ce2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off2 = arith.addi %rb2, %cb2 : tensor<64x64xi32>
  %ws = tt.splat %w : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  %q = tt.addptr %ws, %off2 : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
  %v2 = tensor.cast %acc2 : tensor<64x64xf32, #pallas_gpu.mma<warps = [4, 1]>> to tensor<64x64xf32>
  tt.store %q, %v2 : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// The same tile twice, the second under a mask that only keeps it inside
// the array (tt.bounds_mask: the TMA clips there itself): both go by the
// one tensor map. The accumulator's cast has another use and stays.
// CHECK-LABEL: tt.func public @same_view
// CHECK-SAME: pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 256, row_elements = 128, elem_bytes = 2, box_rows = 64, box_cols = 64>]
// CHECK: %[[V:.*]] = tensor.cast %arg1
// CHECK: pallas_gpu.tma_store %arg1 to %[[P:[^ ]*]] {tensor_map = 0 : i64}
// CHECK-NEXT: pallas_gpu.tma_store %arg1 to %[[P]] {tensor_map = 0 : i64}
// CHECK-NEXT: tt.return %[[V]]
tt.func public @same_view(%z: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 256, 128>},
                          %acc: tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>>, %m: tensor<64x128xi1>) -> tensor<64x128xbf16>
    attributes {pallas.launch = #pallas.launch<symbol = "same_view", grid = [1], expanded>} {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %ro = arith.muli %re, %c128 : tensor<64x1xi32>
  %rb = tt.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
  %off = arith.addi %rb, %cb : tensor<64x128xi32>
  %zs = tt.splat %z : !tt.ptr<bf16> -> tensor<64x128x!tt.ptr<bf16>>
  %p = tt.addptr %zs, %off : tensor<64x128x!tt.ptr<bf16>>, tensor<64x128xi32>
  %v = tensor.cast %acc : tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>> to tensor<64x128xbf16>
  tt.store %p, %v : tensor<64x128x!tt.ptr<bf16>>
  tt.store %p, %v, %m {tt.bounds_mask} : tensor<64x128x!tt.ptr<bf16>>
  tt.return %v : tensor<64x128xbf16>
}

// Left as they are: a store under a mask of the kernel's own; a blocked
// value that is no accumulator; an accumulator of 64-byte rows (no
// 128-byte swizzle); an accumulator of 8-bit elements; a tile whose
// columns are two elements apart (rows not contiguous).
// CHECK-LABEL: tt.func public @left_alone
// CHECK-NOT: pallas_gpu.tensor_maps
// CHECK-NOT: pallas_gpu.tma_store
// CHECK: tt.store %{{.*}}, %{{.*}}, %arg5 : tensor<64x128x!tt.ptr<bf16>>
// CHECK: tt.store %{{.*}}, %arg2 : tensor<64x128x!tt.ptr<bf16>>
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<64x32x!tt.ptr<bf16>>
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<64x128x!tt.ptr<i8>>
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<bf16>>
// CHECK-NOT: pallas_gpu.tma_store
// CHECK: tt.return
tt.func public @left_alone(%z: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.shape = array<i64: 256, 128>},
                           %acc: tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>>,
                           %plain: tensor<64x128xbf16>,
                           %narrow: tensor<64x32xbf16, #pallas_gpu.wgmma<warps = 4>>,
                           %bytes: tensor<64x128xi8, #pallas_gpu.wgmma<warps = 4>>,
                           %m: tensor<64x128xi1>,
                           %y: !tt.ptr<i8> {tt.divisibility = 16 : i32, tt.shape = array<i64: 256, 128>},
                           %half: tensor<64x64xbf16, #pallas_gpu.wgmma<warps = 4>>)
    attributes {pallas.launch = #pallas.launch<symbol = "left_alone", grid = [1], expanded>} {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %ro = arith.muli %re, %c128 : tensor<64x1xi32>
  %rb = tt.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
  %off = arith.addi %rb, %cb : tensor<64x128xi32>
  %zs = tt.splat %z : !tt.ptr<bf16> -> tensor<64x128x!tt.ptr<bf16>>
  %p = tt.addptr %zs, %off : tensor<64x128x!tt.ptr<bf16>>, tensor<64x128xi32>
  %v = tensor.cast %acc : tensor<64x128xbf16, #pallas_gpu.wgmma<warps = 4>> to tensor<64x128xbf16>
  tt.store %p, %v, %m : tensor<64x128x!tt.ptr<bf16>>
  tt.store %p, %plain : tensor<64x128x!tt.ptr<bf16>>
  // 32 columns of bf16.
  %c32 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ce32 = tt.expand_dims %c32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb32 = tt.broadcast %ce32 : tensor<1x32xi32> -> tensor<64x32xi32>
  %rb32 = tt.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %off32 = arith.addi %rb32, %cb32 : tensor<64x32xi32>
  %zs32 = tt.splat %z : !tt.ptr<bf16> -> tensor<64x32x!tt.ptr<bf16>>
  %p32 = tt.addptr %zs32, %off32 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
  %v32 = tensor.cast %narrow : tensor<64x32xbf16, #pallas_gpu.wgmma<warps = 4>> to tensor<64x32xbf16>
  tt.store %p32, %v32 : tensor<64x32x!tt.ptr<bf16>>
  // i8 elements.
  %ys = tt.splat %y : !tt.ptr<i8> -> tensor<64x128x!tt.ptr<i8>>
  %py = tt.addptr %ys, %off : tensor<64x128x!tt.ptr<i8>>, tensor<64x128xi32>
  %vy = tensor.cast %bytes : tensor<64x128xi8, #pallas_gpu.wgmma<warps = 4>> to tensor<64x128xi8>
  tt.store %py, %vy : tensor<64x128x!tt.ptr<i8>>
  // Columns 0, 2, 4, ... of the rows.
  %c2 = arith.constant dense<2> : tensor<1x64xi32>
  %ce64 = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cs = arith.muli %ce64, %c2 : tensor<1x64xi32>
  %cb64 = tt.broadcast %cs : tensor<1x64xi32> -> tensor<64x64xi32>
  %rb64 = tt.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %off64 = arith.addi %rb64, %cb64 : tensor<64x64xi32>
  %zs64 = tt.splat %z : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
  %p64 = tt.addptr %zs64, %off64 : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
  %v64 = tensor.cast %half : tensor<64x64xbf16, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xbf16>
  tt.store %p64, %v64 : tensor<64x64x!tt.ptr<bf16>>
  tt.return
}
