// RUN: pallas-opt %s -pallas-skip-masked-out-loops | FileCheck %s

// A grouped GEMM's row tile: rows first .. first + 128 of its group's
// [lo, hi), all three read from the tables before the K loop. The loop
// runs only where [max(lo - first, 0), min(hi - first, 128)) is not empty.
// CHECK-LABEL: pallas.kernel @rows
// CHECK: %[[FIRST:.*]] = pallas.load %arg0[%{{.*}}] : !pallas.ref<8xi32, smem>, i32 -> i32
// CHECK: %[[LO:.*]] = pallas.load %arg1[%{{.*}}] : !pallas.ref<9xi32, smem>, i32 -> i32
// CHECK: %[[HI:.*]] = pallas.load %arg1[%{{.*}}] : !pallas.ref<9xi32, smem>, i32 -> i32
// CHECK: %[[LO64:.*]] = arith.extsi %[[LO]] : i32 to i64
// CHECK: %[[FROM:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK: %[[L:.*]] = arith.maxsi %{{.*}}, %[[FROM]] : i64
// CHECK: %[[HI64:.*]] = arith.extsi %[[HI]] : i32 to i64
// CHECK: %[[U:.*]] = arith.minsi %{{.*}}, %{{.*}} : i64
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %[[L]], %[[U]] : i64
// CHECK: %[[LIVE:.*]] = arith.andi %{{.*}}, %[[ANY]] : i1
// CHECK: %[[UB:.*]] = arith.select %[[LIVE]], %[[STEPS:.*]], %[[ZERO:.*]] : i32
// CHECK: scf.for %{{.*}} = %[[ZERO]] to %[[UB]] step
// CHECK: pallas.store %arg4[ds(%[[FIRST]], 128), :], %{{.*}} mask
pallas.kernel @rows(%firsts: !pallas.ref<8xi32, smem>, %off: !pallas.ref<9xi32, smem>,
                    %x: !pallas.ref<1024x256xbf16>, %w: !pallas.ref<256x128xbf16>,
                    %z: !pallas.ref<1024x128xf32>) {
  %t = pallas.program_id 0 : i32
  %first = pallas.load %firsts[%t] : !pallas.ref<8xi32, smem>, i32 -> i32
  %lo = pallas.load %off[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  %c1 = arith.constant 1 : i32
  %t1 = arith.addi %t, %c1 : i32
  %hi = pallas.load %off[%t1] : !pallas.ref<9xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%part = %zero) -> (tensor<128x128xf32>) : i32 {
    %k0 = arith.muli %k, %c64 : i32
    %a = pallas.load %x[ds(%first, 128), ds(%k0, 64)] : !pallas.ref<1024x256xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %w[ds(%k0, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
    %d = pallas.dot %a, %b acc %part : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %iota = pallas.iota 0 : tensor<128x128xi32>
  %fb = pallas.broadcast %first : i32 -> tensor<128x128xi32>
  %row = arith.addi %iota, %fb : tensor<128x128xi32>
  %lob = pallas.broadcast %lo : i32 -> tensor<128x128xi32>
  %hib = pallas.broadcast %hi : i32 -> tensor<128x128xi32>
  %ge = arith.cmpi sge, %row, %lob : tensor<128x128xi32>
  %lt = arith.cmpi slt, %row, %hib : tensor<128x128xi32>
  %mine = arith.andi %ge, %lt : tensor<128x128xi1>
  pallas.store %z[ds(%first, 128), :], %acc mask %mine : !pallas.ref<1024x128xf32>, tensor<128x128xf32>
  pallas.return
}

// The megablox tiling: the tile's first row (m * 128) is computed after the
// loop, from a value read before it; the computation is copied above the
// loop. The limit on the left of the comparison (hi > row) and a 1-D mask
// broadcast along the rows read the same way.
// CHECK-LABEL: pallas.kernel @megablox
// CHECK: %[[M:.*]] = pallas.load %arg0
// CHECK: %[[FIRST:.*]] = arith.muli %[[M]], %{{.*}} : i32
// CHECK: arith.extsi %[[FIRST]] : i32 to i64
// CHECK: %[[UB:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[UB]] step
// CHECK: arith.muli %[[M]], %{{.*}} : i32
pallas.kernel @megablox(%mt: !pallas.ref<8xi32, smem>, %off: !pallas.ref<9xi32, smem>,
                        %x: !pallas.ref<128x256xbf16>, %w: !pallas.ref<256x128xbf16>,
                        %z: !pallas.ref<128x128xf32>) {
  %t = pallas.program_id 0 : i32
  %m = pallas.load %mt[%t] : !pallas.ref<8xi32, smem>, i32 -> i32
  %hi = pallas.load %off[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%part = %zero) -> (tensor<128x128xf32>) : i32 {
    %k0 = arith.muli %k, %c64 : i32
    %a = pallas.load %x[:, ds(%k0, 64)] : !pallas.ref<128x256xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %w[ds(%k0, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
    %d = pallas.dot %a, %b acc %part : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %c128 = arith.constant 128 : i32
  %first = arith.muli %m, %c128 : i32
  %iota = pallas.iota 0 : tensor<128xi32>
  %fb = pallas.broadcast %first : i32 -> tensor<128xi32>
  %row = arith.addi %fb, %iota : tensor<128xi32>
  %hib = pallas.broadcast %hi : i32 -> tensor<128xi32>
  %rows = arith.cmpi sgt, %hib, %row : tensor<128xi32>
  %mine = pallas.broadcast %rows dims [0] : tensor<128xi1> -> tensor<128x128xi1>
  pallas.store %z[...], %acc mask %mine : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.return
}

// A mask of a scalar condition (pl.when's): the loop runs where it holds.
// CHECK-LABEL: pallas.kernel @when
// CHECK: %[[LIVE:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: %[[ALL:.*]] = arith.andi %{{.*}}, %[[LIVE]] : i1
// CHECK: arith.select %[[ALL]], %{{.*}}, %{{.*}} : i32
pallas.kernel @when(%n: !pallas.ref<1xi32, smem>, %x: !pallas.ref<64x64xf32>,
                    %z: !pallas.ref<64x64xf32>) {
  %t = pallas.program_id 0 : i32
  %count = pallas.load %n[0] : !pallas.ref<1xi32, smem> -> i32
  %live = arith.cmpi slt, %t, %count : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%part = %zero) -> (tensor<64x64xf32>) : i32 {
    %a = pallas.load %x[...] : !pallas.ref<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %a, %part : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %mask = pallas.broadcast %live : i1 -> tensor<64x64xi1>
  pallas.store %z[...], %acc mask %mask : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}

// Nothing changes where some write is not a masked store of the kernel's
// body: an unmasked store, a mask read from memory, a store in the loop,
// an atomic.
// CHECK-LABEL: pallas.kernel @unmasked
// CHECK-NOT: arith.select
// CHECK: pallas.return
pallas.kernel @unmasked(%x: !pallas.ref<64x64xf32>, %z: !pallas.ref<64x64xf32>,
                        %y: !pallas.ref<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%part = %zero) -> (tensor<64x64xf32>) : i32 {
    %a = pallas.load %x[...] : !pallas.ref<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %a, %part : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %f = arith.constant dense<false> : tensor<64x64xi1>
  pallas.store %z[...], %acc mask %f : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.store %y[...], %acc : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}

// CHECK-LABEL: pallas.kernel @loaded_mask
// CHECK-NOT: arith.select
// CHECK: pallas.return
pallas.kernel @loaded_mask(%x: !pallas.ref<64x64xf32>, %m: !pallas.ref<64x64xi32>,
                           %z: !pallas.ref<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%part = %zero) -> (tensor<64x64xf32>) : i32 {
    %a = pallas.load %x[...] : !pallas.ref<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %a, %part : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %mv = pallas.load %m[...] : !pallas.ref<64x64xi32> -> tensor<64x64xi32>
  %zi = arith.constant dense<0> : tensor<64x64xi32>
  %mask = arith.cmpi sgt, %mv, %zi : tensor<64x64xi32>
  pallas.store %z[...], %acc mask %mask : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}

// CHECK-LABEL: pallas.kernel @store_in_loop
// CHECK-NOT: arith.select
// CHECK: pallas.return
pallas.kernel @store_in_loop(%n: !pallas.ref<1xi32, smem>, %x: !pallas.ref<64x64xf32>,
                             %z: !pallas.ref<64x64xf32>) {
  %t = pallas.program_id 0 : i32
  %count = pallas.load %n[0] : !pallas.ref<1xi32, smem> -> i32
  %live = arith.cmpi slt, %t, %count : i32
  %mask = pallas.broadcast %live : i1 -> tensor<64x64xi1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  scf.for %k = %c0 to %c8 step %c1 : i32 {
    %a = pallas.load %x[...] : !pallas.ref<64x64xf32> -> tensor<64x64xf32>
    pallas.store %z[...], %a mask %mask : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  }
  pallas.return
}

// CHECK-LABEL: pallas.kernel @atomic
// CHECK-NOT: arith.select
// CHECK: pallas.return
pallas.kernel @atomic(%n: !pallas.ref<1xi32, smem>, %x: !pallas.ref<64x64xf32>,
                      %z: !pallas.ref<64x64xf32>, %c: !pallas.ref<1xi32>) {
  %t = pallas.program_id 0 : i32
  %count = pallas.load %n[0] : !pallas.ref<1xi32, smem> -> i32
  %live = arith.cmpi slt, %t, %count : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%part = %zero) -> (tensor<64x64xf32>) : i32 {
    %a = pallas.load %x[...] : !pallas.ref<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %a, %part : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %old = pallas.atomic_rmw add %c[0], %c1 : !pallas.ref<1xi32>, i32
  %mask = pallas.broadcast %live : i1 -> tensor<64x64xi1>
  pallas.store %z[...], %acc mask %mask : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}
