// pallas-async-copies: a tt.load marked tt.async_copy (a pallas.async_copy
// into a scoped buffer) of a 2-D tile becomes a one-buffer ring, allocated
// at the kernel's start, filled by pallas_gpu.async_copy and its own
// pallas_gpu.async_commit group where the load was; its value is read from
// the ring (pallas_gpu.ring_read) after a pallas_gpu.async_wait for that
// group (later groups left pending), placed before the first op that uses
// it or, before that, writes memory. A wait an earlier one covers goes.
// Loads whose value a dot reads, loads without the mark, 1-D loads and
// copies beyond a quarter of shared-bytes stay loads; shared-bytes = 0 (the
// default) leaves every load. (The TMA form: async-copies-tma.mlir.)
// RUN: pallas-opt %s --pallas-async-copies=shared-bytes=166912 | FileCheck %s
// RUN: pallas-opt %s --pallas-async-copies | FileCheck %s --check-prefix=OFF
// RUN: pallas-opt %s --pallas-async-copies=shared-bytes=16896 | FileCheck %s --check-prefix=QUARTER

// OFF-NOT: pallas_gpu

// examples/dma_overlap: x's copy, then y's; exp(y) waits for y's group
// only, which leaves none pending (it was committed last); x's wait, which
// that one covers, goes.
// CHECK-LABEL: tt.func public @overlap
// CHECK-NEXT: %[[RY:.*]] = pallas_gpu.alloc_ring : <1, tensor<8x128xf32, #pallas_gpu.shared<padded_rows>>>
// CHECK-NEXT: %[[RX:.*]] = pallas_gpu.alloc_ring : <1, tensor<8x128xf32, #pallas_gpu.shared<padded_rows>>>
// CHECK: %[[XP:.*]] = tt.addptr %{{.*}} : tensor<8x128x!tt.ptr<f32>>
// CHECK: %[[YP:.*]] = tt.addptr %{{.*}} : tensor<8x128x!tt.ptr<f32>>
// CHECK: pallas_gpu.async_copy %[[XP]] into %[[RX]][%{{.*}}] : tensor<8x128x!tt.ptr<f32>>, !pallas_gpu.ring<1, tensor<8x128xf32, #pallas_gpu.shared<padded_rows>>>
// CHECK-NEXT: pallas_gpu.async_commit
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: pallas_gpu.async_copy %[[YP]] into %[[RY]]
// CHECK-NEXT: pallas_gpu.async_commit
// CHECK-NEXT: pallas_gpu.async_wait 0
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: %[[B:.*]] = pallas_gpu.ring_read %[[RY]][%{{.*}}] : !pallas_gpu.ring<1, tensor<8x128xf32, #pallas_gpu.shared<padded_rows>>> -> tensor<8x128xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[B]]
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: %[[A:.*]] = pallas_gpu.ring_read %[[RX]]
// CHECK-NEXT: arith.addf %[[A]], %[[E]]
// CHECK-NOT: pallas_gpu.async_wait
// CHECK-NOT: tt.load
// CHECK: tt.return
tt.func public @overlap(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %y: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>})
    attributes {pallas.launch = #pallas.launch<symbol = "overlap", grid = [1], expanded>} {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %op = tt.addptr %os, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %a = tt.load %xp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %b = tt.load %yp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %eb = math.exp %b : tensor<8x128xf32>
  %s = arith.addf %a, %eb : tensor<8x128xf32>
  tt.store %op, %s : tensor<8x128x!tt.ptr<f32>>
  tt.return
}

// x's value read first: its wait leaves y's group pending; then y's.
// CHECK-LABEL: tt.func public @in_order
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RX:[0-9]+]]
// CHECK-NEXT: pallas_gpu.async_commit
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[RY:[0-9]+]]
// CHECK-NEXT: pallas_gpu.async_commit
// CHECK-NEXT: pallas_gpu.async_wait 1
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[A:.*]] = pallas_gpu.ring_read %[[RX]]
// CHECK-NEXT: math.exp %[[A]]
// CHECK-NEXT: pallas_gpu.async_wait 0
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: pallas_gpu.ring_read %[[RY]]
tt.func public @in_order(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %y: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>})
    attributes {pallas.launch = #pallas.launch<symbol = "in_order", grid = [1], expanded>} {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %op = tt.addptr %os, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %a = tt.load %xp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %b = tt.load %yp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %ea = math.exp %a : tensor<8x128xf32>
  %s = arith.addf %ea, %b : tensor<8x128xf32>
  tt.store %op, %s : tensor<8x128x!tt.ptr<f32>>
  tt.return
}

// A store before the first use may write the copied window: the copy must
// have landed by then (it reads the window when it starts).
// CHECK-LABEL: tt.func public @store_between
// CHECK: pallas_gpu.async_commit
// CHECK-NEXT: pallas_gpu.async_wait 0
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[A:.*]] = pallas_gpu.ring_read
// CHECK-NEXT: tt.store %{{.*}}, %arg3
// CHECK-NEXT: math.exp %[[A]]
tt.func public @store_between(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %y: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>}, %z: tensor<8x128xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "store_between", grid = [1], expanded>} {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %op = tt.addptr %os, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %a = tt.load %xp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  tt.store %op, %z : tensor<8x128x!tt.ptr<f32>>
  %ea = math.exp %a : tensor<8x128xf32>
  tt.store %op, %ea : tensor<8x128x!tt.ptr<f32>>
  tt.return
}

// Left loads: one a dot reads (pallas-stage-loads places dot operands),
// one without the mark, a 1-D one.
// CHECK-LABEL: tt.func public @left_alone
// CHECK-NOT: pallas_gpu
// CHECK: tt.load %{{.*}} {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}} : tensor<8x128x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}} {tt.async_copy} : tensor<128x!tt.ptr<f32>>
// CHECK-NOT: pallas_gpu
// CHECK: tt.return
tt.func public @left_alone(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %y: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>},
    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.shape = array<i64: 64, 128>}, %acc: tensor<128x128xf32>)
    attributes {pallas.launch = #pallas.launch<symbol = "left_alone", grid = [1], expanded>} {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tt.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
  %op = tt.addptr %os, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
  %a = tt.load %xp {tt.async_copy} : tensor<8x128x!tt.ptr<f32>>
  %t = tt.trans %a {order = array<i32: 1, 0>} : tensor<8x128xf32> -> tensor<128x8xf32>
  %d = tt.dot %t, %a, %acc : tensor<128x8xf32> * tensor<8x128xf32> -> tensor<128x128xf32>
  %b = tt.load %yp : tensor<8x128x!tt.ptr<f32>>
  %eb = math.exp %b : tensor<8x128xf32>
  tt.store %op, %eb : tensor<8x128x!tt.ptr<f32>>
  %xs1 = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %xp1 = tt.addptr %xs1, %c : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %v = tt.load %xp1 {tt.async_copy} : tensor<128x!tt.ptr<f32>>
  %ev = math.exp %v : tensor<128xf32>
  tt.return
}

// A quarter of 16896 bytes holds one 8x128 f32 buffer (rows padded by 16
// bytes: 4224 bytes): the first copy (x's) goes, the second stays a load.
// QUARTER-LABEL: tt.func public @overlap
// QUARTER-NEXT: %[[RX:.*]] = pallas_gpu.alloc_ring
// QUARTER-NOT: pallas_gpu.alloc_ring
// QUARTER: pallas_gpu.async_copy %{{.*}} into %[[RX]]
// QUARTER-NEXT: pallas_gpu.async_commit
// QUARTER-NEXT: %[[B:.*]] = tt.load %{{.*}} {tt.async_copy}
// QUARTER-NEXT: math.exp %[[B]]
// QUARTER-NEXT: pallas_gpu.async_wait 0
