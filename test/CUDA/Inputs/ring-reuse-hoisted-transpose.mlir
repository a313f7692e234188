// (test/CUDA/ring-reuse.test) K loaded before the loop and transposed there (as LICM leaves it);
// the loop's Q also feeds a reduction, so it goes through scratch.
module {
  tt.func public @k(%q: !tt.ptr<bf16> {tt.divisibility = 16 : i32},
                    %kk: !tt.ptr<bf16> {tt.divisibility = 16 : i32},
                    %o: !tt.ptr<f32> {tt.divisibility = 16 : i32},
                    %o2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "k", grid = [1]>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c4096 = arith.constant 4096 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %r64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %i = tt.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c64t = arith.constant dense<64> : tensor<64x1xi32>
    %row = arith.muli %i, %c64t : tensor<64x1xi32>
    %j = tt.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %rowb = tt.broadcast %row : tensor<64x1xi32> -> tensor<64x64xi32>
    %jb = tt.broadcast %j : tensor<1x64xi32> -> tensor<64x64xi32>
    %off = arith.addi %rowb, %jb : tensor<64x64xi32>
    %ks = tt.splat %kk : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %kp = tt.addptr %ks, %off : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %kv = tt.load %kp : tensor<64x64x!tt.ptr<bf16>>
    %kt = tt.trans %kv {order = array<i32: 1, 0>} : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %qs = tt.splat %q : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %qp = tt.addptr %qs, %off : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %zr = arith.constant dense<0.0> : tensor<64xf32>
    %acc:2 = scf.for %it = %c0 to %c4 step %c1 iter_args(%a = %zero, %s = %zr) -> (tensor<64x64xf32>, tensor<64xf32>) : i32 {
      %st = arith.muli %it, %c4096 : i32
      %sts = tt.splat %st : i32 -> tensor<64x64xi32>
      %qpk = tt.addptr %qp, %sts : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      %qv = tt.load %qpk : tensor<64x64x!tt.ptr<bf16>>
      %d = tt.dot %qv, %kt, %a : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
      %qf = arith.extf %qv : tensor<64x64xbf16> to tensor<64x64xf32>
      %red = "tt.reduce"(%qf) ({
      ^bb0(%x: f32, %y: f32):
        %m = arith.maxnumf %x, %y : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<64x64xf32>) -> tensor<64xf32>
      %s2 = arith.addf %s, %red : tensor<64xf32>
      scf.yield %d, %s2 : tensor<64x64xf32>, tensor<64xf32>
    }
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %op = tt.addptr %os, %off : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    tt.store %op, %acc#0 : tensor<64x64x!tt.ptr<f32>>
    %o2s = tt.splat %o2 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %o2p = tt.addptr %o2s, %r64 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %o2p, %acc#1 : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
