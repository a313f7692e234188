// Flash attention forward in fp8 as examples/flash_attention_f8 writes it,
// but walking K and V^T 256 keys at a time (B*H = 2, S = 1024, D = 128):
// the form that runs fastest on sm_90a (bench/kernels/flash_attention_f8_kb256_*).
// Its two dots' registers in flight (scores 128, output 64, probabilities
// 32 a thread) are near the consumers' budget, so pallas-async-dots waits
// for P V before issuing the next Q K^T. Q, K and V in f8E4M3FN with
// per-tensor descales (scalar prefetch), V given transposed ([D, S],
// K-major), bf16 out; the scores are scaled by descale_q * descale_k /
// sqrt(128), the output by descale_v.
pallas.kernel @flash_attention_f8(%scales: !pallas.ref<3xf32, smem>,
                                  %q: !pallas.ref<128x128xf8E4M3FN>, %k: !pallas.ref<1024x128xf8E4M3FN>,
                                  %vt: !pallas.ref<128x1024xf8E4M3FN>, %o: !pallas.ref<128x128xbf16>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %trips = arith.constant 4 : i32
  %cb = arith.constant 256 : i32
  %dq = pallas.load %scales[%c0] : !pallas.ref<3xf32, smem>, i32 -> f32
  %dk = pallas.load %scales[%c1] : !pallas.ref<3xf32, smem>, i32 -> f32
  %dv = pallas.load %scales[%c2] : !pallas.ref<3xf32, smem>, i32 -> f32
  %sm = arith.constant 0.08838834764831845 : f32
  %dqk = arith.mulf %dq, %dk : f32
  %sc = arith.mulf %dqk, %sm : f32
  %scale = pallas.broadcast %sc : f32 -> tensor<128x256xf32>
  %qv = pallas.load %q[...] : !pallas.ref<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %m0 = arith.constant dense<-1.000000e+30> : tensor<128xf32>
  %l0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %a0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %r:3 = scf.for %j = %c0 to %trips step %c1 iter_args(%m = %m0, %l = %l0, %acc = %a0) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) : i32 {
    %off = arith.muli %j, %cb : i32
    %kb = pallas.load %k[ds(%off, 256), :] : !pallas.ref<1024x128xf8E4M3FN> -> tensor<256x128xf8E4M3FN>
    %vb = pallas.load %vt[:, ds(%off, 256)] : !pallas.ref<128x1024xf8E4M3FN> -> tensor<128x256xf8E4M3FN>
    %qk = pallas.dot %qv, %kb {transpose_rhs} : tensor<128x128xf8E4M3FN>, tensor<256x128xf8E4M3FN> -> tensor<128x256xf32>
    %s = arith.mulf %qk, %scale : tensor<128x256xf32>
    %mx = pallas.reduce max %s [1] : tensor<128x256xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m, %mx : tensor<128xf32>
    %dm = arith.subf %m, %mn : tensor<128xf32>
    %alpha = math.exp %dm : tensor<128xf32>
    %mb = pallas.broadcast %mn dims [0] : tensor<128xf32> -> tensor<128x256xf32>
    %sd = arith.subf %s, %mb : tensor<128x256xf32>
    %p = math.exp %sd : tensor<128x256xf32>
    %ps = pallas.reduce sum %p [1] : tensor<128x256xf32> -> tensor<128xf32>
    %la = arith.mulf %l, %alpha : tensor<128xf32>
    %ln = arith.addf %la, %ps : tensor<128xf32>
    %ab = pallas.broadcast %alpha dims [0] : tensor<128xf32> -> tensor<128x128xf32>
    %as = arith.mulf %acc, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x256xf32> to tensor<128x256xf8E4M3FN>
    %pv = pallas.dot %pb, %vb {transpose_rhs} : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E4M3FN> -> tensor<128x128xf32>
    %an = arith.addf %as, %pv : tensor<128x128xf32>
    scf.yield %mn, %ln, %an : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %dvb = pallas.broadcast %dv : f32 -> tensor<128xf32>
  %ls = arith.divf %dvb, %r#1 : tensor<128xf32>
  %lb = pallas.broadcast %ls dims [0] : tensor<128xf32> -> tensor<128x128xf32>
  %out = arith.mulf %r#2, %lb : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  pallas.store %o[...], %ob : !pallas.ref<128x128xbf16>, tensor<128x128xbf16>
  pallas.return
}
