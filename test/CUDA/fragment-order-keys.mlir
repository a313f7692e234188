// RUN: pallas-opt %s -split-input-file --pallas-fragment-order-keys | FileCheck %s

// fp8 attention's scores S = Q K^T reach P = f8(exp2(S * s - m)) only
// through work that treats every column alike (a splat scale, a row
// broadcast, row reductions): K's ring, filled by the TMA at multiples of
// 16 rows, gets a tensor map whose boxes hold the rows permuted within
// each 16, and P's cast into fragment order joins the thread's own bytes.
// CHECK-LABEL: tt.func public @scores_to_p
// CHECK-SAME: pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 1024, row_elements = 128, elem_bytes = 1, box_rows = 128, box_cols = 128, fragment_rows = true>]
// CHECK: tensor.cast %{{.*}} {pallas_gpu.keys_in_fragment_order} : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>
tt.func public @scores_to_p(%k: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32, tt.shape = array<i64: 1024, 128>},
                            %q: tensor<128x128xf8E4M3FN>, %scale: f32, %j: i32)
    -> (tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>)
    attributes {pallas.launch = #pallas.launch<symbol = "scores_to_p", grid = [1], expanded>,
                pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 1024, row_elements = 128, elem_bytes = 1, box_rows = 128, box_cols = 128>]} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %ring = pallas_gpu.alloc_ring : <2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  // Rows j * 128 .. j * 128 + 127 of k.
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tt.broadcast %re : tensor<128x1xi32> -> tensor<128x128xi32>
  %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<128x128xi32>
  %c128 = arith.constant 128 : i32
  %row0 = arith.muli %j, %c128 : i32
  %rs = tt.splat %row0 : i32 -> tensor<128x128xi32>
  %rows = arith.addi %rb, %rs : tensor<128x128xi32>
  %w = arith.constant dense<128> : tensor<128x128xi32>
  %ro = arith.muli %rows, %w : tensor<128x128xi32>
  %off = arith.addi %ro, %cb : tensor<128x128xi32>
  %ks = tt.splat %k : !tt.ptr<f8E4M3FN> -> tensor<128x128x!tt.ptr<f8E4M3FN>>
  %kp = tt.addptr %ks, %off : tensor<128x128x!tt.ptr<f8E4M3FN>>, tensor<128x128xi32>
  pallas_gpu.tma_copy %kp into %ring[%c0] signal %bars {tensor_map = 0 : i64} : tensor<128x128x!tt.ptr<f8E4M3FN>>, !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  pallas_gpu.wait_filled %bars[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
  %kb = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>> -> tensor<128x128xf8E4M3FN>
  %kt = tt.trans %kb {order = array<i32: 1, 0>} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %acc = tensor.cast %zero : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %s = tt.dot %q, %kt, %acc : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %sc = tt.splat %scale : f32 -> tensor<128x128xf32>
  %scw = tensor.cast %sc : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %ss = arith.mulf %s, %scw : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %m = "tt.reduce"(%ss) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.maximumf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %me = tt.expand_dims %m {axis = 1 : i32} : tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %mb = tt.broadcast %me : tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %d = arith.subf %ss, %mb : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %p = math.exp2 %d : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %l = "tt.reduce"(%p) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %p8 = arith.truncf %p : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>>
  %pa = tensor.cast %p8 : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>
  tt.return %pa, %l : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
}

// -----

// A mask from the column index (causal attention) tells the columns apart:
// K stays in order, P is gathered by shuffles.
// CHECK-LABEL: tt.func public @column_mask
// CHECK-NOT: fragment_rows
// CHECK-NOT: keys_in_fragment_order
// CHECK: tt.return
tt.func public @column_mask(%k: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32, tt.shape = array<i64: 1024, 128>},
                            %q: tensor<128x128xf8E4M3FN>, %scale: f32, %j: i32)
    -> (tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>)
    attributes {pallas.launch = #pallas.launch<symbol = "column_mask", grid = [1], expanded>,
                pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 1024, row_elements = 128, elem_bytes = 1, box_rows = 128, box_cols = 128>]} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %ring = pallas_gpu.alloc_ring : <2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  // Rows j * 128 .. j * 128 + 127 of k.
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tt.broadcast %re : tensor<128x1xi32> -> tensor<128x128xi32>
  %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<128x128xi32>
  %c128 = arith.constant 128 : i32
  %row0 = arith.muli %j, %c128 : i32
  %rs = tt.splat %row0 : i32 -> tensor<128x128xi32>
  %rows = arith.addi %rb, %rs : tensor<128x128xi32>
  %w = arith.constant dense<128> : tensor<128x128xi32>
  %ro = arith.muli %rows, %w : tensor<128x128xi32>
  %off = arith.addi %ro, %cb : tensor<128x128xi32>
  %ks = tt.splat %k : !tt.ptr<f8E4M3FN> -> tensor<128x128x!tt.ptr<f8E4M3FN>>
  %kp = tt.addptr %ks, %off : tensor<128x128x!tt.ptr<f8E4M3FN>>, tensor<128x128xi32>
  pallas_gpu.tma_copy %kp into %ring[%c0] signal %bars {tensor_map = 0 : i64} : tensor<128x128x!tt.ptr<f8E4M3FN>>, !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  pallas_gpu.wait_filled %bars[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
  %kb = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>> -> tensor<128x128xf8E4M3FN>
  %kt = tt.trans %kb {order = array<i32: 1, 0>} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %acc = tensor.cast %zero : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %s = tt.dot %q, %kt, %acc : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %sc = tt.splat %scale : f32 -> tensor<128x128xf32>
  %scw = tensor.cast %sc : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %ss = arith.mulf %s, %scw : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %m = "tt.reduce"(%ss) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.maximumf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %me = tt.expand_dims %m {axis = 1 : i32} : tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %mb = tt.broadcast %me : tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %ninf = arith.constant dense<-1.000000e+30> : tensor<128x128xf32>
  %ninfw = tensor.cast %ninf : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %cbw = tensor.cast %cb : tensor<128x128xi32> to tensor<128x128xi32, #pallas_gpu.wgmma<warps = 8>>
  %rbw = tensor.cast %rb : tensor<128x128xi32> to tensor<128x128xi32, #pallas_gpu.wgmma<warps = 8>>
  %keep = arith.cmpi sge, %rbw, %cbw : tensor<128x128xi32, #pallas_gpu.wgmma<warps = 8>>
  %sm = arith.select %keep, %ss, %ninfw : tensor<128x128xi1, #pallas_gpu.wgmma<warps = 8>>, tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %d = arith.subf %sm, %mb : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %p = math.exp2 %d : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %l = "tt.reduce"(%p) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %p8 = arith.truncf %p : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>>
  %pa = tensor.cast %p8 : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>
  tt.return %pa, %l : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
}

// -----

// K's blocks may start at any row (j, not j * 128): a 16-row group of the
// permuted view could straddle them. Left alone.
// CHECK-LABEL: tt.func public @any_row
// CHECK-NOT: fragment_rows
// CHECK-NOT: keys_in_fragment_order
// CHECK: tt.return
tt.func public @any_row(%k: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32, tt.shape = array<i64: 1024, 128>},
                            %q: tensor<128x128xf8E4M3FN>, %scale: f32, %j: i32)
    -> (tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>)
    attributes {pallas.launch = #pallas.launch<symbol = "any_row", grid = [1], expanded>,
                pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 1024, row_elements = 128, elem_bytes = 1, box_rows = 128, box_cols = 128>]} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %ring = pallas_gpu.alloc_ring : <2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  // Rows j * 128 .. j * 128 + 127 of k.
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tt.broadcast %re : tensor<128x1xi32> -> tensor<128x128xi32>
  %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<128x128xi32>
  %c128 = arith.constant 128 : i32
  %rs = tt.splat %j : i32 -> tensor<128x128xi32>
  %rows = arith.addi %rb, %rs : tensor<128x128xi32>
  %w = arith.constant dense<128> : tensor<128x128xi32>
  %ro = arith.muli %rows, %w : tensor<128x128xi32>
  %off = arith.addi %ro, %cb : tensor<128x128xi32>
  %ks = tt.splat %k : !tt.ptr<f8E4M3FN> -> tensor<128x128x!tt.ptr<f8E4M3FN>>
  %kp = tt.addptr %ks, %off : tensor<128x128x!tt.ptr<f8E4M3FN>>, tensor<128x128xi32>
  pallas_gpu.tma_copy %kp into %ring[%c0] signal %bars {tensor_map = 0 : i64} : tensor<128x128x!tt.ptr<f8E4M3FN>>, !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  pallas_gpu.wait_filled %bars[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
  %kb = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>> -> tensor<128x128xf8E4M3FN>
  %kt = tt.trans %kb {order = array<i32: 1, 0>} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %acc = tensor.cast %zero : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %s = tt.dot %q, %kt, %acc : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %sc = tt.splat %scale : f32 -> tensor<128x128xf32>
  %scw = tensor.cast %sc : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %ss = arith.mulf %s, %scw : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %m = "tt.reduce"(%ss) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.maximumf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %me = tt.expand_dims %m {axis = 1 : i32} : tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %mb = tt.broadcast %me : tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %d = arith.subf %ss, %mb : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %p = math.exp2 %d : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %l = "tt.reduce"(%p) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %p8 = arith.truncf %p : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>>
  %pa = tensor.cast %p8 : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>
  tt.return %pa, %l : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
}

// -----

// The scaled scores are returned as well: their columns must stay in order.
// CHECK-LABEL: tt.func public @scores_escape
// CHECK-NOT: fragment_rows
// CHECK-NOT: keys_in_fragment_order
// CHECK: tt.return
tt.func public @scores_escape(%k: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32, tt.shape = array<i64: 1024, 128>},
                            %q: tensor<128x128xf8E4M3FN>, %scale: f32, %j: i32)
    -> (tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>, tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>)
    attributes {pallas.launch = #pallas.launch<symbol = "scores_escape", grid = [1], expanded>,
                pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 1024, row_elements = 128, elem_bytes = 1, box_rows = 128, box_cols = 128>]} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %ring = pallas_gpu.alloc_ring : <2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  // Rows j * 128 .. j * 128 + 127 of k.
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tt.broadcast %re : tensor<128x1xi32> -> tensor<128x128xi32>
  %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<128x128xi32>
  %c128 = arith.constant 128 : i32
  %row0 = arith.muli %j, %c128 : i32
  %rs = tt.splat %row0 : i32 -> tensor<128x128xi32>
  %rows = arith.addi %rb, %rs : tensor<128x128xi32>
  %w = arith.constant dense<128> : tensor<128x128xi32>
  %ro = arith.muli %rows, %w : tensor<128x128xi32>
  %off = arith.addi %ro, %cb : tensor<128x128xi32>
  %ks = tt.splat %k : !tt.ptr<f8E4M3FN> -> tensor<128x128x!tt.ptr<f8E4M3FN>>
  %kp = tt.addptr %ks, %off : tensor<128x128x!tt.ptr<f8E4M3FN>>, tensor<128x128xi32>
  pallas_gpu.tma_copy %kp into %ring[%c0] signal %bars {tensor_map = 0 : i64} : tensor<128x128x!tt.ptr<f8E4M3FN>>, !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  pallas_gpu.wait_filled %bars[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
  %kb = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>> -> tensor<128x128xf8E4M3FN>
  %kt = tt.trans %kb {order = array<i32: 1, 0>} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %acc = tensor.cast %zero : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %s = tt.dot %q, %kt, %acc : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %sc = tt.splat %scale : f32 -> tensor<128x128xf32>
  %scw = tensor.cast %sc : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %ss = arith.mulf %s, %scw : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %m = "tt.reduce"(%ss) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.maximumf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %me = tt.expand_dims %m {axis = 1 : i32} : tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %mb = tt.broadcast %me : tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %d = arith.subf %ss, %mb : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %p = math.exp2 %d : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %l = "tt.reduce"(%p) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %p8 = arith.truncf %p : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>>
  %pa = tensor.cast %p8 : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>
  tt.return %pa, %l, %ss : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>, tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
}

// -----

// Another ring is filled through K's map (copies that read K in order):
// the map stays as it is.
// CHECK-LABEL: tt.func public @map_shared
// CHECK-NOT: fragment_rows
// CHECK-NOT: keys_in_fragment_order
// CHECK: tt.return
tt.func public @map_shared(%k: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32, tt.shape = array<i64: 1024, 128>},
                            %q: tensor<128x128xf8E4M3FN>, %scale: f32, %j: i32)
    -> (tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>)
    attributes {pallas.launch = #pallas.launch<symbol = "map_shared", grid = [1], expanded>,
                pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 1024, row_elements = 128, elem_bytes = 1, box_rows = 128, box_cols = 128>]} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %ring = pallas_gpu.alloc_ring : <2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>
  %bars = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<2>
  // Rows j * 128 .. j * 128 + 127 of k.
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tt.broadcast %re : tensor<128x1xi32> -> tensor<128x128xi32>
  %ce = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<128x128xi32>
  %c128 = arith.constant 128 : i32
  %row0 = arith.muli %j, %c128 : i32
  %rs = tt.splat %row0 : i32 -> tensor<128x128xi32>
  %rows = arith.addi %rb, %rs : tensor<128x128xi32>
  %w = arith.constant dense<128> : tensor<128x128xi32>
  %ro = arith.muli %rows, %w : tensor<128x128xi32>
  %off = arith.addi %ro, %cb : tensor<128x128xi32>
  %ks = tt.splat %k : !tt.ptr<f8E4M3FN> -> tensor<128x128x!tt.ptr<f8E4M3FN>>
  %kp = tt.addptr %ks, %off : tensor<128x128x!tt.ptr<f8E4M3FN>>, tensor<128x128xi32>
  pallas_gpu.tma_copy %kp into %ring[%c0] signal %bars {tensor_map = 0 : i64} : tensor<128x128x!tt.ptr<f8E4M3FN>>, !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<2>
  %ring2 = pallas_gpu.alloc_ring : <1, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>
  %bars2 = pallas_gpu.alloc_slot_barriers tma : !pallas_gpu.slot_barriers<1>
  pallas_gpu.tma_copy %kp into %ring2[%c0] signal %bars2 {tensor_map = 0 : i64} : tensor<128x128x!tt.ptr<f8E4M3FN>>, !pallas_gpu.ring<1, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.slot_barriers<1>
  pallas_gpu.wait_filled %bars[%c0] phase %c0 : !pallas_gpu.slot_barriers<2>
  %kb = pallas_gpu.ring_read %ring[%c0] : !pallas_gpu.ring<2, tensor<128x128xf8E4M3FN, #pallas_gpu.shared<swizzle_128b>>> -> tensor<128x128xf8E4M3FN>
  %kt = tt.trans %kb {order = array<i32: 1, 0>} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %acc = tensor.cast %zero : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %s = tt.dot %q, %kt, %acc : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %sc = tt.splat %scale : f32 -> tensor<128x128xf32>
  %scw = tensor.cast %sc : tensor<128x128xf32> to tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %ss = arith.mulf %s, %scw : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %m = "tt.reduce"(%ss) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.maximumf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %me = tt.expand_dims %m {axis = 1 : i32} : tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %mb = tt.broadcast %me : tensor<128x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>> -> tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %d = arith.subf %ss, %mb : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %p = math.exp2 %d : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>
  %l = "tt.reduce"(%p) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
  %p8 = arith.truncf %p : tensor<128x128xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>>
  %pa = tensor.cast %p8 : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma<warps = 8>> to tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>
  tt.return %pa, %l : tensor<128x128xf8E4M3FN, #pallas_gpu.wgmma_f8_a<warps = 8>>, tensor<128xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>>
}
