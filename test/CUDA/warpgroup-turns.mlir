// pallas-warpgroup-turns: in a loop whose body holds more than one dot in
// the wgmma layout of two or more warpgroups (8 warps and up), the
// warpgroups take turns at the dots. Each run of dots with nothing between
// them reading their results is one turn: its first dot takes the turn
// (pallas_gpu.turn_take), its last passes it on (pallas_gpu.turn_pass),
// and the loop is bracketed by pallas_gpu.turns_begin / turns_end. Loops
// with one dot, one warpgroup or other dots are left alone.
// RUN: pallas-opt %s --pallas-warpgroup-turns | FileCheck %s

// Attention's QK^T, the softmax reading it, then PV: two turns of one dot.
// CHECK-LABEL: tt.func @attention
// CHECK: pallas_gpu.turns_begin
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[S:.*]] = tt.dot %arg0, %arg1, %{{.*}} {pallas_gpu.turn_pass, pallas_gpu.turn_take}
// CHECK-NEXT: %[[P:.*]] = math.exp %[[S]]
// CHECK-NEXT: arith.truncf %[[P]]
// CHECK-NEXT: tt.dot %{{.*}}, %arg2, %{{.*}} {pallas_gpu.turn_pass, pallas_gpu.turn_take}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: pallas_gpu.turns_end
// CHECK-NEXT: tt.return
tt.func @attention(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>, %v: tensor<64x64xf16>,
                   %o: tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %o) -> (tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %s = tt.dot %q, %k, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %p = math.exp %s : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %ph = arith.truncf %p : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>>
    %d = tt.dot %ph, %v, %acc : tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %d : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return %r : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
}

// After pallas-defer-last-dot, PV of the last iteration sits beside this
// iteration's QK^T (nothing between reads PV's result): one turn of both,
// the first taking it, the second passing it on.
// CHECK-LABEL: tt.func @side_by_side
// CHECK: pallas_gpu.turns_begin
// CHECK-NEXT: scf.for
// CHECK-NEXT: tt.dot %{{.*}}, %arg2, %{{.*}} {pallas_gpu.turn_take} :
// CHECK-NEXT: %[[S:.*]] = tt.dot %arg0, %arg1, %{{.*}} {pallas_gpu.turn_pass} :
// CHECK-NEXT: math.exp %[[S]]
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: pallas_gpu.turns_end
tt.func @side_by_side(%q: tensor<128x64xf16>, %k: tensor<64x64xf16>, %v: tensor<64x64xf16>,
                      %o: tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>,
                      %p0: tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>>) -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  %r:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %o, %p = %p0) -> (tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>, tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %d = tt.dot %p, %v, %acc : tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %s = tt.dot %q, %k, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %e = math.exp %s : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %ph = arith.truncf %e : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %d, %ph : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>, tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return %r#0 : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
}

// Left alone: a GEMM's K loop (one dot), two dots of one warpgroup
// (4 warps), and two dots in the mma.sync layout.
// CHECK-LABEL: tt.func @left_alone
// CHECK-NOT: pallas_gpu.turn
// CHECK: tt.return
tt.func @left_alone(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf16>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z8 = arith.constant dense<0.0> : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  %k = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z8) -> (tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %d = tt.dot %a, %b, %acc : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %d : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  %z4 = arith.constant dense<0.0> : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 4>>
  %one = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z4) -> (tensor<128x64xf32, #pallas_gpu.wgmma<warps = 4>>) : i32 {
    %d = tt.dot %a, %b, %acc : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 4>>
    %e = tt.dot %a, %c, %d : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 4>>
    scf.yield %e : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 4>>
  }
  %zm = arith.constant dense<0.0> : tensor<128x64xf32, #pallas_gpu.mma<warps = [8, 1]>>
  %mma = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zm) -> (tensor<128x64xf32, #pallas_gpu.mma<warps = [8, 1]>>) : i32 {
    %d = tt.dot %a, %b, %acc : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.mma<warps = [8, 1]>>
    %e = tt.dot %a, %c, %d : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.mma<warps = [8, 1]>>
    scf.yield %e : tensor<128x64xf32, #pallas_gpu.mma<warps = [8, 1]>>
  }
  tt.return
}

// A loop that broadcasts a vector along its tiles' columns every iteration
// (attention backward over transposed scores: the row statistics)
// exchanges it through shared memory, behind barriers every consumer warp
// meets: staggered by turns, one warpgroup would wait there for the other,
// waiting for its turn. No turns.
// CHECK-LABEL: tt.func @exchanges
// CHECK-NOT: pallas_gpu.turn
// CHECK: tt.return
tt.func @exchanges(%k: tensor<128x64xf16>, %qt: tensor<64x64xf16>, %do: tensor<64x64xf16>,
                   %lse: tensor<64xf32>) -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>) : i32 {
    %s = tt.dot %k, %qt, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %l = tt.expand_dims %lse {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %lb = tt.broadcast %l : tensor<1x64xf32> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %x = arith.subf %s, %lb : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    %p = arith.truncf %x : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>> to tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>>
    %d = tt.dot %p, %do, %acc : tensor<128x64xf16, #pallas_gpu.wgmma<warps = 8>> * tensor<64x64xf16> -> tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
    scf.yield %d : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
  }
  tt.return %r : tensor<128x64xf32, #pallas_gpu.wgmma<warps = 8>>
}
