// flash_attention_d64_s4096 on 4 warps: what JAX's mha runs at D = 64
// without block sizes (128 x 128 blocks; num_warps 4 where head_dim <= 64).
// Flash attention forward, bf16, D = 64, as JAX's
// pallas/ops/gpu/attention.py writes it: one program per (batch*head,
// 128-row query block); K and V whole per program, walked in 128-row
// slices by an scf.for; online softmax carries the running max, the running
// sum and the output accumulator. The scores are scaled by 1/sqrt(64) in
// f32 after the first dot.
pallas.kernel @flash_attention(%q: !pallas.ref<128x64xbf16>, %k: !pallas.ref<4096x64xbf16>,
                               %v: !pallas.ref<4096x64xbf16>, %o: !pallas.ref<128x64xbf16>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %qv = pallas.load %q[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %scale = arith.constant dense<0.125> : tensor<128x128xf32>
  %m0 = arith.constant dense<-1.000000e+30> : tensor<128xf32>
  %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %a0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %r:3 = scf.for %j = %c0 to %c32 step %c1 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) : i32 {
    %off = arith.muli %j, %c128 : i32
    %kb = pallas.load %k[ds(%off, 128), :] : !pallas.ref<4096x64xbf16> -> tensor<128x64xbf16>
    %vb = pallas.load %v[ds(%off, 128), :] : !pallas.ref<4096x64xbf16> -> tensor<128x64xbf16>
    %qk = pallas.dot %qv, %kb {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
    %s = arith.mulf %qk, %scale : tensor<128x128xf32>
    %mx = pallas.reduce max %s [1] : tensor<128x128xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m, %mx : tensor<128xf32>
    %dm = arith.subf %m, %mn : tensor<128xf32>
    %alpha = math.exp %dm : tensor<128xf32>
    %mb = pallas.broadcast %mn dims [0] : tensor<128xf32> -> tensor<128x128xf32>
    %sd = arith.subf %s, %mb : tensor<128x128xf32>
    %p = math.exp %sd : tensor<128x128xf32>
    %ps = pallas.reduce sum %p [1] : tensor<128x128xf32> -> tensor<128xf32>
    %la = arith.mulf %l, %alpha : tensor<128xf32>
    %ln = arith.addf %la, %ps : tensor<128xf32>
    %ab = pallas.broadcast %alpha dims [0] : tensor<128xf32> -> tensor<128x64xf32>
    %as = arith.mulf %acc, %ab : tensor<128x64xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
    %pv = pallas.dot %pb, %vb : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %an = arith.addf %as, %pv : tensor<128x64xf32>
    scf.yield %mn, %ln, %an : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  }
  %lb = pallas.broadcast %r#1 dims [0] : tensor<128xf32> -> tensor<128x64xf32>
  %out = arith.divf %r#2, %lb : tensor<128x64xf32>
  %ob = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
  pallas.store %o[...], %ob : !pallas.ref<128x64xbf16>, tensor<128x64xbf16>
  pallas.return
}
