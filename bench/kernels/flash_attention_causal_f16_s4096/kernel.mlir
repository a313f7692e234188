// Causal flash attention forward, f16, D = 128, as JAX's
// pallas/ops/gpu/attention.py writes it: one program per (batch*head,
// 128-row query block i); K and V whole per program, walked in 128-row
// slices by an scf.for over the key blocks 0..i (the trip count depends on
// the program id: no work for blocks wholly above the diagonal); keys after
// the query are masked out with iota compares; online softmax carries the
// running max, the running sum and the output accumulator.
pallas.kernel @flash_attention_causal_f16_s4096(%q: !pallas.ref<128x128xf16>, %k: !pallas.ref<4096x128xf16>,
                                      %v: !pallas.ref<4096x128xf16>, %o: !pallas.ref<128x128xf16>) {
  %i = pallas.program_id 1 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %qv = pallas.load %q[...] : !pallas.ref<128x128xf16> -> tensor<128x128xf16>
  %scale = arith.constant dense<0.0883883461> : tensor<128x128xf32>
  %qoff = arith.muli %i, %c128 : i32
  %rows = pallas.iota 0 : tensor<128x128xi32>
  %cols = pallas.iota 1 : tensor<128x128xi32>
  %qb = pallas.broadcast %qoff : i32 -> tensor<128x128xi32>
  %qidx = arith.addi %rows, %qb : tensor<128x128xi32>
  %ninf = arith.constant dense<-1.000000e+30> : tensor<128x128xf32>
  %m0 = arith.constant dense<-1.000000e+30> : tensor<128xf32>
  %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %a0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %nblocks = arith.addi %i, %c1 : i32
  %r:3 = scf.for %j = %c0 to %nblocks step %c1 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) : i32 {
    %off = arith.muli %j, %c128 : i32
    %kb = pallas.load %k[ds(%off, 128), :] : !pallas.ref<4096x128xf16> -> tensor<128x128xf16>
    %vb = pallas.load %v[ds(%off, 128), :] : !pallas.ref<4096x128xf16> -> tensor<128x128xf16>
    %qk = pallas.dot %qv, %kb {transpose_rhs} : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
    %s = arith.mulf %qk, %scale : tensor<128x128xf32>
    %kbase = pallas.broadcast %off : i32 -> tensor<128x128xi32>
    %kidx = arith.addi %cols, %kbase : tensor<128x128xi32>
    %keep = arith.cmpi sge, %qidx, %kidx : tensor<128x128xi32>
    %sm = arith.select %keep, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
    %mx = pallas.reduce max %sm [1] : tensor<128x128xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m, %mx : tensor<128xf32>
    %dm = arith.subf %m, %mn : tensor<128xf32>
    %alpha = math.exp %dm : tensor<128xf32>
    %mb = pallas.broadcast %mn dims [0] : tensor<128xf32> -> tensor<128x128xf32>
    %sd = arith.subf %sm, %mb : tensor<128x128xf32>
    %p = math.exp %sd : tensor<128x128xf32>
    %ps = pallas.reduce sum %p [1] : tensor<128x128xf32> -> tensor<128xf32>
    %la = arith.mulf %l, %alpha : tensor<128xf32>
    %ln = arith.addf %la, %ps : tensor<128xf32>
    %ab = pallas.broadcast %alpha dims [0] : tensor<128xf32> -> tensor<128x128xf32>
    %as = arith.mulf %acc, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
    %pv = pallas.dot %pb, %vb : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
    %an = arith.addf %as, %pv : tensor<128x128xf32>
    scf.yield %mn, %ln, %an : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %lb = pallas.broadcast %r#1 dims [0] : tensor<128xf32> -> tensor<128x128xf32>
  %out = arith.divf %r#2, %lb : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xf16>
  pallas.store %o[...], %ob : !pallas.ref<128x128xf16>, tensor<128x128xf16>
  pallas.return
}
