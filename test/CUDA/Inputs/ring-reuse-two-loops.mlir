// (test/CUDA/ring-reuse.test) Two K loops staged by cp.async, one after
// the other: the second's rings may take the first's memory.
// A K loop feeding a bf16 dot: x[64, 128] times y[128, 64], 32 of K per
// iteration (tile IR, as convert-pallas-to-tile writes it).
module {
  tt.func public @dot_loop(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32},
                           %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32},
                           %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %x2: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %y2: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "dot_loop", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %r32 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    // x[i, k]: i * 128 + k
    %xi = tt.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c128t = arith.constant dense<128> : tensor<64x1xi32>
    %xrow = arith.muli %xi, %c128t : tensor<64x1xi32>
    %xk = tt.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %xrowb = tt.broadcast %xrow : tensor<64x1xi32> -> tensor<64x32xi32>
    %xkb = tt.broadcast %xk : tensor<1x32xi32> -> tensor<64x32xi32>
    %xoff = arith.addi %xrowb, %xkb : tensor<64x32xi32>
    %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<64x32x!tt.ptr<bf16>>
    %xp = tt.addptr %xs, %xoff : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    // y[k, j]: k * 64 + j
    %yk = tt.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c64t = arith.constant dense<64> : tensor<32x1xi32>
    %yrow = arith.muli %yk, %c64t : tensor<32x1xi32>
    %yj = tt.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %yrowb = tt.broadcast %yrow : tensor<32x1xi32> -> tensor<32x64xi32>
    %yjb = tt.broadcast %yj : tensor<1x64xi32> -> tensor<32x64xi32>
    %yoff = arith.addi %yrowb, %yjb : tensor<32x64xi32>
    %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
    %yp = tt.addptr %ys, %yoff : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    %xs2 = tt.splat %x2 : !tt.ptr<bf16> -> tensor<64x32x!tt.ptr<bf16>>
    %xp2 = tt.addptr %xs2, %xoff : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %ys2 = tt.splat %y2 : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
    %yp2 = tt.addptr %ys2, %yoff : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    %oi = tt.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c64o = arith.constant dense<64> : tensor<64x1xi32>
    %orow = arith.muli %oi, %c64o : tensor<64x1xi32>
    %orowb = tt.broadcast %orow : tensor<64x1xi32> -> tensor<64x64xi32>
    %ojb = tt.broadcast %yj : tensor<1x64xi32> -> tensor<64x64xi32>
    %ooff = arith.addi %orowb, %ojb : tensor<64x64xi32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %op = tt.addptr %os, %ooff : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    %os2 = tt.splat %o2 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %op2 = tt.addptr %os2, %ooff : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
      %ks = tt.splat %k : i32 -> tensor<64x64xi32>
      %sp = tt.addptr %op2, %ks : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
      tt.store %sp, %zero : tensor<64x64x!tt.ptr<f32>>

      %kx = arith.muli %k, %c32 : i32
      %kxs = tt.splat %kx : i32 -> tensor<64x32xi32>
      %xpk = tt.addptr %xp, %kxs : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %a = tt.load %xpk : tensor<64x32x!tt.ptr<bf16>>
      %ky = arith.muli %kx, %c64 : i32
      %kys = tt.splat %ky : i32 -> tensor<32x64xi32>
      %ypk = tt.addptr %yp, %kys : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
      %b = tt.load %ypk : tensor<32x64x!tt.ptr<bf16>>
      %d = tt.dot %a, %b, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %acc2 = scf.for %k_B = %c0 to %c4 step %c1 iter_args(%acc_i_B = %zero) -> (tensor<64x64xf32>) : i32 {
      %kx_B = arith.muli %k_B, %c32 : i32
      %kxs_B = tt.splat %kx_B : i32 -> tensor<64x32xi32>
      %xpk_B = tt.addptr %xp2, %kxs_B : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %a_B = tt.load %xpk_B : tensor<64x32x!tt.ptr<bf16>>
      %ky_B = arith.muli %kx_B, %c64 : i32
      %kys_B = tt.splat %ky_B : i32 -> tensor<32x64xi32>
      %ypk_B = tt.addptr %yp2, %kys_B : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
      %b_B = tt.load %ypk_B : tensor<32x64x!tt.ptr<bf16>>
      %d_B = tt.dot %a_B, %b_B, %acc_i_B : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
      scf.yield %d_B : tensor<64x64xf32>
    }
    %sum = arith.addf %acc, %acc2 : tensor<64x64xf32>
    tt.store %op, %sum : tensor<64x64x!tt.ptr<f32>>
    tt.return
  }
}
