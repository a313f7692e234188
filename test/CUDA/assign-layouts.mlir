// RUN: pallas-opt %s --pallas-assign-layouts | FileCheck %s
// RUN: sed 's/grid = \[1\]>/grid = [1], num_warps = 1>/' %s | pallas-opt --pallas-assign-layouts | FileCheck %s --check-prefix=ONEWARP

// pallas-assign-layouts alone on tile IR in the tt form pallasc -t triton
// writes: dots that tensor cores can run get the #pallas_gpu.mma encoding on
// their result and accumulator; tensor.cast marks every change of layout.

// A loop that carries a dot's accumulator carries the mma layout: the
// initial value is cast in before the loop, the dot yields its mma result
// directly, and the loop result is cast back to the plain (blocked) tensor
// after the loop.
// CHECK-LABEL: tt.func public @kloop
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
// CHECK: %[[INIT:.*]] = tensor.cast %[[ZERO]] : tensor<64x32xf32> to tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>) : i32 {
// CHECK-NOT: tensor.cast
// CHECK: %[[D:.*]] = tt.dot %{{.*}}, %{{.*}}, %[[ACC]] : tensor<64x16xbf16> * tensor<16x32xbf16> -> tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
// CHECK-NEXT: scf.yield %[[D]] : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
// CHECK-NEXT: }
// CHECK-NEXT: %[[PLAIN:.*]] = tensor.cast %[[LOOP]] : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>> to tensor<64x32xf32>
// CHECK-NEXT: tt.reshape %[[PLAIN]] : tensor<64x32xf32> -> tensor<2048xf32>
module {
  tt.func public @kloop(%a: !tt.ptr<bf16>, %b: !tt.ptr<bf16>, %o: !tt.ptr<f32>) attributes {pallas.launch = #pallas.launch<symbol = "kloop", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
    %ra = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %pa0 = tt.splat %a : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
    %pa = tt.addptr %pa0, %ra : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
    %rb = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %pb0 = tt.splat %b : !tt.ptr<bf16> -> tensor<512x!tt.ptr<bf16>>
    %pb = tt.addptr %pb0, %rb : tensor<512x!tt.ptr<bf16>>, tensor<512xi32>
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%arg = %zero) -> (tensor<64x32xf32>)  : i32 {
      %x = tt.load %pa : tensor<1024x!tt.ptr<bf16>>
      %xa = tt.reshape %x : tensor<1024xbf16> -> tensor<64x16xbf16>
      %y = tt.load %pb : tensor<512x!tt.ptr<bf16>>
      %yb = tt.reshape %y : tensor<512xbf16> -> tensor<16x32xbf16>
      %d = tt.dot %xa, %yb, %arg : tensor<64x16xbf16> * tensor<16x32xbf16> -> tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    %flat = tt.reshape %acc : tensor<64x32xf32> -> tensor<2048xf32>
    %ro = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
    %po0 = tt.splat %o : !tt.ptr<f32> -> tensor<2048x!tt.ptr<f32>>
    %po = tt.addptr %po0, %ro : tensor<2048x!tt.ptr<f32>>, tensor<2048xi32>
    tt.store %po, %flat : tensor<2048x!tt.ptr<f32>>
    tt.return
  }

// A dot outside a loop (f16, and f32 at TF32 precision): the accumulator
// is cast in right before the dot, the result cast back right after it.
// CHECK-LABEL: tt.func public @single
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<32x32xf32> to tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: %[[D:.*]] = tt.dot %{{.*}}, %{{.*}}, %[[C]] : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: %[[P:.*]] = tensor.cast %[[D]] : tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>> to tensor<32x32xf32>
// CHECK: %[[C2:.*]] = tensor.cast %[[P]] : tensor<32x32xf32> to tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: %[[D2:.*]] = tt.dot %{{.*}}, %{{.*}}, %[[C2]], inputPrecision = tf32 : tensor<32x8xf32> * tensor<8x32xf32> -> tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: tensor.cast %[[D2]] : tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>> to tensor<32x32xf32>
  tt.func public @single(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: tensor<32x32xf32>,
                         %x: tensor<32x8xf32>, %y: tensor<8x32xf32>) -> tensor<32x32xf32> attributes {pallas.launch = #pallas.launch<symbol = "single", grid = [1]>} {
    %d = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
    %e = tt.dot %x, %y, %d, inputPrecision = tf32 : tensor<32x8xf32> * tensor<8x32xf32> -> tensor<32x32xf32>
    tt.return %e : tensor<32x32xf32>
  }

// What tensor cores cannot run keeps the blocked layout: f32 at IEEE
// precision, a K that is not a multiple of the mma step, integer dots,
// and (on four warps) a result too small to tile over the warps in 16x8
// pieces. One warp can run the 16x8 dot.
// CHECK-LABEL: tt.func public @blocked
// CHECK-NOT: pallas_gpu.mma
// CHECK: tt.return
// ONEWARP-LABEL: tt.func public @blocked
// ONEWARP-NOT: pallas_gpu.mma
// ONEWARP: tensor.cast %{{.*}} : tensor<16x8xf32> to tensor<16x8xf32, #pallas_gpu.mma<warps = [1, 1]>>
// ONEWARP-NEXT: tt.dot {{.*}} : tensor<16x16xbf16> * tensor<16x8xbf16> -> tensor<16x8xf32, #pallas_gpu.mma<warps = [1, 1]>>
// ONEWARP-NEXT: tensor.cast %{{.*}} : tensor<16x8xf32, #pallas_gpu.mma<warps = [1, 1]>> to tensor<16x8xf32>
// ONEWARP-NOT: pallas_gpu.mma
// ONEWARP: tt.return
  tt.func public @blocked(%x: tensor<32x8xf32>, %y: tensor<8x32xf32>, %c: tensor<32x32xf32>,
                          %a: tensor<32x8xbf16>, %b: tensor<8x32xbf16>,
                          %i: tensor<32x16xi8>, %j: tensor<16x32xi8>, %ci: tensor<32x32xi32>,
                          %s: tensor<16x16xbf16>, %t: tensor<16x8xbf16>, %cs: tensor<16x8xf32>)
      -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xi32>, tensor<16x8xf32>) attributes {pallas.launch = #pallas.launch<symbol = "blocked", grid = [1]>} {
    %ieee = tt.dot %x, %y, %c : tensor<32x8xf32> * tensor<8x32xf32> -> tensor<32x32xf32>
    %oddk = tt.dot %a, %b, %c : tensor<32x8xbf16> * tensor<8x32xbf16> -> tensor<32x32xf32>
    %int = tt.dot %i, %j, %ci : tensor<32x16xi8> * tensor<16x32xi8> -> tensor<32x32xi32>
    %small = tt.dot %s, %t, %cs : tensor<16x16xbf16> * tensor<16x8xbf16> -> tensor<16x8xf32>
    tt.return %ieee, %oddk, %int, %small : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xi32>, tensor<16x8xf32>
  }

// An accumulator the loop body also uses elsewhere: the elementwise op
// computes in the mma layout too, and the loop carries its result in it.
// CHECK-LABEL: tt.func public @shared_acc
// CHECK: tensor.cast %{{.*}} : tensor<32x32xf32> to tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK: scf.for {{.*}} -> (tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>) : i32 {
// CHECK-NEXT: tt.dot {{.*}} -> tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: arith.addf {{.*}} : tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: scf.yield %{{.*}} : tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK: tensor.cast %{{.*}} : tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>> to tensor<32x32xf32>
  tt.func public @shared_acc(%a: tensor<32x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {pallas.launch = #pallas.launch<symbol = "shared_acc", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %c) -> (tensor<32x32xf32>)  : i32 {
      %d = tt.dot %a, %b, %acc : tensor<32x16xbf16> * tensor<16x32xbf16> -> tensor<32x32xf32>
      %e = arith.addf %d, %acc : tensor<32x32xf32>
      scf.yield %e : tensor<32x32xf32>
    }
    tt.return %r : tensor<32x32xf32>
  }

// A result that leaves the mma layout only to be narrowed is narrowed in
// it, so the layout change moves bf16 rather than f32.
// CHECK-LABEL: tt.func public @narrowed
// CHECK: %[[D:.*]] = tt.dot {{.*}} -> tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[D]] : tensor<32x32xf32, #pallas_gpu.mma<warps = [2, 2]>> to tensor<32x32xbf16, #pallas_gpu.mma<warps = [2, 2]>>
// CHECK-NEXT: %[[P:.*]] = tensor.cast %[[N]] : tensor<32x32xbf16, #pallas_gpu.mma<warps = [2, 2]>> to tensor<32x32xbf16>
// CHECK-NEXT: tt.return %[[P]]
  tt.func public @narrowed(%a: tensor<32x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<32x32xf32>) -> tensor<32x32xbf16> attributes {pallas.launch = #pallas.launch<symbol = "narrowed", grid = [1]>} {
    %d = tt.dot %a, %b, %c : tensor<32x16xbf16> * tensor<16x32xbf16> -> tensor<32x32xf32>
    %n = arith.truncf %d : tensor<32x32xf32> to tensor<32x32xbf16>
    tt.return %n : tensor<32x32xbf16>
  }

// Online softmax between two dots (flash attention's loop body): the row
// max and sum end in the accumulator's row slice, broadcasts go back into
// the wgmma layout, and the loop carries max, sum and accumulator in
// registers. Only P leaves the layout, as the second dot's A operand.
// RUN: pallas-opt %s --pallas-assign-layouts=wgmma=true | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX-LABEL: tt.func public @online_softmax
// SOFTMAX: scf.for {{.*}} -> (tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 4>>>, tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 4>>>, tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>)
// SOFTMAX: "tt.reduce"
// SOFTMAX: (tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>) -> tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 4>>>
// SOFTMAX: tt.broadcast {{.*}} : tensor<64x1xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 4>>> -> tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// SOFTMAX: math.exp {{.*}} : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// SOFTMAX: arith.truncf {{.*}} : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xbf16, #pallas_gpu.wgmma<warps = 4>>
// SOFTMAX-NEXT: tensor.cast {{.*}} : tensor<64x64xbf16, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xbf16>
// SOFTMAX-NEXT: tensor.cast %{{.*}} : tensor<64x64xf32> to tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// SOFTMAX-NEXT: tt.dot
// SOFTMAX-NEXT: arith.addf {{.*}} : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
// SOFTMAX-NEXT: scf.yield
  tt.func public @online_softmax(%q: tensor<64x64xbf16>, %k: tensor<64x64xbf16>, %v: tensor<64x64xbf16>)
      -> (tensor<64xf32>, tensor<64x64xf32>) attributes {pallas.launch = #pallas.launch<symbol = "online_softmax", grid = [1], num_warps = 4>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %m0 = arith.constant dense<-1.0e30> : tensor<64xf32>
    %l0 = arith.constant dense<0.0> : tensor<64xf32>
    %r:3 = scf.for %j = %c0 to %c4 step %c1 iter_args(%m = %m0, %l = %l0, %acc = %z) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) : i32 {
      %s = tt.dot %q, %k, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
      %mx = "tt.reduce"(%s) <{axis = 1 : i32}> ({
      ^bb0(%x: f32, %y: f32):
        %t = arith.maximumf %x, %y : f32
        tt.reduce.return %t : f32
      }) : (tensor<64x64xf32>) -> tensor<64xf32>
      %mn = arith.maximumf %m, %mx : tensor<64xf32>
      %e = tt.expand_dims %mn {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
      %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
      %d = arith.subf %s, %b : tensor<64x64xf32>
      %p = math.exp %d : tensor<64x64xf32>
      %ps = "tt.reduce"(%p) <{axis = 1 : i32}> ({
      ^bb0(%x: f32, %y: f32):
        %t = arith.addf %x, %y : f32
        tt.reduce.return %t : f32
      }) : (tensor<64x64xf32>) -> tensor<64xf32>
      %ln = arith.addf %l, %ps : tensor<64xf32>
      %ph = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
      %o = tt.dot %ph, %v, %z : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
      %an = arith.addf %acc, %o : tensor<64x64xf32>
      scf.yield %mn, %ln, %an : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    }
    tt.return %r#1, %r#2 : tensor<64xf32>, tensor<64x64xf32>
  }

// A TPU-style accumulator reset (arith.select on a scalar condition: zero
// at the first k program, else the carried value) computes in the mma
// layout too: the loop carries the accumulator in it, nothing leaves it
// inside the loop.
// CHECK-LABEL: tt.func public @reset_acc
// CHECK: scf.for {{.*}} -> (tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>) : i32 {
// CHECK-NOT: to tensor<64x32xf32>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
// CHECK-NOT: to tensor<64x32xf32>
// CHECK: tt.dot %{{.*}}, %{{.*}}, %[[SEL]] : tensor<64x16xbf16> * tensor<16x32xbf16> -> tensor<64x32xf32, #pallas_gpu.mma<warps = [4, 1]>>
// CHECK-NEXT: scf.yield
  tt.func public @reset_acc(%a: !tt.ptr<bf16>, %b: !tt.ptr<bf16>) -> tensor<64x32xf32> attributes {pallas.launch = #pallas.launch<symbol = "reset_acc", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
    %ra = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %pa0 = tt.splat %a : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
    %pa = tt.addptr %pa0, %ra : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
    %rb = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %pb0 = tt.splat %b : !tt.ptr<bf16> -> tensor<512x!tt.ptr<bf16>>
    %pb = tt.addptr %pb0, %rb : tensor<512x!tt.ptr<bf16>>, tensor<512xi32>
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%arg = %zero) -> (tensor<64x32xf32>)  : i32 {
      %first = arith.cmpi eq, %k, %c0 : i32
      %old = arith.select %first, %zero, %arg : tensor<64x32xf32>
      %x = tt.load %pa : tensor<1024x!tt.ptr<bf16>>
      %xa = tt.reshape %x : tensor<1024xbf16> -> tensor<64x16xbf16>
      %y = tt.load %pb : tensor<512x!tt.ptr<bf16>>
      %yb = tt.reshape %y : tensor<512xbf16> -> tensor<16x32xbf16>
      %d = tt.dot %xa, %yb, %old : tensor<64x16xbf16> * tensor<16x32xbf16> -> tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tt.return %acc : tensor<64x32xf32>
  }
}
