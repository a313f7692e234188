// The five-matmul attention backward (dK and dV walking 128-row query
// blocks, dQ added atomically; bench/gpu/attention_dq_atomic.py) at D = 64
// on 128-row key and query blocks, eight warps: its S and dP are 128 x 128.
pallas.kernel @mha_dq_atomic_backward(
    %q_ref: !pallas.ref<256x64xbf16>,
    %k_ref: !pallas.ref<256x64xbf16>,
    %v_ref: !pallas.ref<256x64xbf16>,
    %do_ref: !pallas.ref<256x64xbf16>,
    %lse_ref: !pallas.ref<256xf32>,
    %delta_ref: !pallas.ref<256xf32>,
    %dq_in_ref: !pallas.ref<256x64xf32>,
    %dq_acc_ref: !pallas.ref<256x64xf32>,
    %dk_ref: !pallas.ref<128x64xbf16>,
    %dv_ref: !pallas.ref<128x64xbf16>) {
  %0 = pallas.program_id 2 : i32
  %1 = arith.constant 128 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = pallas.load %k_ref[ds(%2, 128), :] : !pallas.ref<256x64xbf16> -> tensor<128x64xbf16>
  %4 = pallas.load %v_ref[ds(%2, 128), :] : !pallas.ref<256x64xbf16> -> tensor<128x64xbf16>
  %5 = arith.constant dense<0.0> : tensor<128x64xf32>
  %6 = arith.constant 0 : i32
  %7 = arith.constant 2 : i32
  %8 = arith.constant 1 : i32
  %9:2 = scf.for %10 = %6 to %7 step %8 iter_args(%11 = %5, %12 = %5) -> (tensor<128x64xf32>, tensor<128x64xf32>) : i32 {
    %13 = arith.muli %10, %1 : i32
    %14 = pallas.load %q_ref[ds(%13, 128), :] : !pallas.ref<256x64xbf16> -> tensor<128x64xbf16>
    %15 = pallas.dot %14, %3 {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
    %16 = arith.constant dense<0.18033688> : tensor<128x128xf32>
    %17 = arith.mulf %15, %16 : tensor<128x128xf32>
    %18 = pallas.load %lse_ref[ds(%13, 128)] : !pallas.ref<256xf32> -> tensor<128xf32>
    %19 = pallas.load %delta_ref[ds(%13, 128)] : !pallas.ref<256xf32> -> tensor<128xf32>
    %20 = pallas.load %do_ref[ds(%13, 128), :] : !pallas.ref<256x64xbf16> -> tensor<128x64xbf16>
    %21 = pallas.broadcast %18 dims [0] : tensor<128xf32> -> tensor<128x128xf32>
    %22 = arith.subf %17, %21 : tensor<128x128xf32>
    %23 = math.exp2 %22 : tensor<128x128xf32>
    %24 = arith.truncf %23 : tensor<128x128xf32> to tensor<128x128xbf16>
    %25 = pallas.dot %24, %20 {transpose_lhs} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %26 = arith.addf %11, %25 : tensor<128x64xf32>
    %27 = arith.constant dense<0.0> : tensor<128x128xf32>
    %28 = pallas.broadcast %19 dims [0] : tensor<128xf32> -> tensor<128x128xf32>
    %29 = arith.subf %27, %28 : tensor<128x128xf32>
    %30 = pallas.dot %20, %4 {transpose_rhs} : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
    %31 = arith.addf %29, %30 : tensor<128x128xf32>
    %32 = arith.mulf %23, %31 : tensor<128x128xf32>
    %33 = arith.constant dense<0.125> : tensor<128x128xf32>
    %34 = arith.mulf %32, %33 : tensor<128x128xf32>
    %35 = arith.truncf %34 : tensor<128x128xf32> to tensor<128x128xbf16>
    %36 = pallas.dot %35, %14 {transpose_lhs} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %37 = arith.addf %12, %36 : tensor<128x64xf32>
    %38 = pallas.dot %35, %3 : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %39 = pallas.atomic_rmw add %dq_acc_ref[ds(%13, 128), :], %38 : !pallas.ref<256x64xf32>, tensor<128x64xf32>
    scf.yield %26, %37 : tensor<128x64xf32>, tensor<128x64xf32>
  }
  %40 = arith.truncf %9#0 : tensor<128x64xf32> to tensor<128x64xbf16>
  pallas.store %dv_ref[...], %40 : !pallas.ref<128x64xbf16>, tensor<128x64xbf16>
  %41 = arith.truncf %9#1 : tensor<128x64xf32> to tensor<128x64xbf16>
  pallas.store %dk_ref[...], %41 : !pallas.ref<128x64xbf16>, tensor<128x64xbf16>
  pallas.return
}
