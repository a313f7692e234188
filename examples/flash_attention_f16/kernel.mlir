// Causal flash attention, f16, as JAX's pallas/ops/gpu/attention.py writes
// it: one program per (batch*head, 64-row query block); K and V whole per
// program, walked in 64-row slices by an scf.for whose trip count depends
// on the program id (causal: key blocks 0..i); online softmax carries the
// running max, the running sum and the accumulator (three tensors).
pallas.kernel @flash_attention_f16(%q: !pallas.ref<64x64xf16>, %k: !pallas.ref<256x64xf16>,
                                   %v: !pallas.ref<256x64xf16>, %o: !pallas.ref<64x64xf16>) {
  %i = pallas.program_id 1 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %qv = pallas.load %q[...] : !pallas.ref<64x64xf16> -> tensor<64x64xf16>
  // 1/sqrt(64), exact in f16.
  %scale = arith.constant dense<1.250000e-01> : tensor<64x64xf16>
  %qs = arith.mulf %qv, %scale : tensor<64x64xf16>
  %qoff = arith.muli %i, %c64 : i32
  %rows = pallas.iota 0 : tensor<64x64xi32>
  %cols = pallas.iota 1 : tensor<64x64xi32>
  %qb = pallas.broadcast %qoff : i32 -> tensor<64x64xi32>
  %qidx = arith.addi %rows, %qb : tensor<64x64xi32>
  %ninf = arith.constant dense<-1.000000e+30> : tensor<64x64xf32>
  %m0 = arith.constant dense<-1.000000e+30> : tensor<64xf32>
  %l0 = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %a0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %nblocks = arith.addi %i, %c1 : i32
  %r:3 = scf.for %j = %c0 to %nblocks step %c1 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) : i32 {
    %off = arith.muli %j, %c64 : i32
    %kb = pallas.load %k[ds(%off, 64), :] : !pallas.ref<256x64xf16> -> tensor<64x64xf16>
    %vb = pallas.load %v[ds(%off, 64), :] : !pallas.ref<256x64xf16> -> tensor<64x64xf16>
    %s = pallas.dot %qs, %kb {transpose_rhs} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    // Keys after the query are masked out.
    %kbase = pallas.broadcast %off : i32 -> tensor<64x64xi32>
    %kidx = arith.addi %cols, %kbase : tensor<64x64xi32>
    %keep = arith.cmpi sge, %qidx, %kidx : tensor<64x64xi32>
    %sm = arith.select %keep, %s, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %mx = pallas.reduce max %sm [1] : tensor<64x64xf32> -> tensor<64xf32>
    %mn = arith.maximumf %m, %mx : tensor<64xf32>
    %mb = pallas.broadcast %mn dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %sd = arith.subf %sm, %mb : tensor<64x64xf32>
    %p = math.exp %sd : tensor<64x64xf32>
    %dm = arith.subf %m, %mn : tensor<64xf32>
    %alpha = math.exp %dm : tensor<64xf32>
    %ps = pallas.reduce sum %p [1] : tensor<64x64xf32> -> tensor<64xf32>
    %la = arith.mulf %l, %alpha : tensor<64xf32>
    %ln = arith.addf %la, %ps : tensor<64xf32>
    %ab = pallas.broadcast %alpha dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %as = arith.mulf %acc, %ab : tensor<64x64xf32>
    %ph = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %an = pallas.dot %ph, %vb acc %as : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %mn, %ln, %an : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  }
  %lb = pallas.broadcast %r#1 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
  %out = arith.divf %r#2, %lb : tensor<64x64xf32>
  %oh = arith.truncf %out : tensor<64x64xf32> to tensor<64x64xf16>
  pallas.store %o[...], %oh : !pallas.ref<64x64xf16>, tensor<64x64xf16>
  pallas.return
}
