// As attention_backward_dq_atomic_d128.mlir with 128-row key blocks on
// eight warps (FA3's split): the dots over a 64-row query block run with
// the two warpgroups splitting their columns.
pallas.kernel @mha_dq_atomic_backward(
    %q_ref: !pallas.ref<256x128xbf16>,
    %k_ref: !pallas.ref<256x128xbf16>,
    %v_ref: !pallas.ref<256x128xbf16>,
    %do_ref: !pallas.ref<256x128xbf16>,
    %lse_ref: !pallas.ref<256xf32>,
    %delta_ref: !pallas.ref<256xf32>,
    %dq_in_ref: !pallas.ref<256x128xf32>,
    %dq_acc_ref: !pallas.ref<256x128xf32>,
    %dk_ref: !pallas.ref<128x128xbf16>,
    %dv_ref: !pallas.ref<128x128xbf16>) {
  %0 = pallas.program_id 2 : i32
  %1 = arith.constant 128 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = pallas.load %k_ref[ds(%2, 128), :] : !pallas.ref<256x128xbf16> -> tensor<128x128xbf16>
  %4 = pallas.load %v_ref[ds(%2, 128), :] : !pallas.ref<256x128xbf16> -> tensor<128x128xbf16>
  %5 = arith.constant dense<0.0> : tensor<128x128xf32>
  %6 = arith.constant 0 : i32
  %7 = arith.constant 4 : i32
  %8 = arith.constant 1 : i32
  %9:2 = scf.for %10 = %6 to %7 step %8 iter_args(%11 = %5, %12 = %5) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
    %13 = arith.constant 64 : i32
    %14 = arith.muli %10, %13 : i32
    %15 = pallas.load %q_ref[ds(%14, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
    %16 = pallas.dot %15, %3 {transpose_rhs} : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
    %17 = arith.constant dense<0.12751743> : tensor<64x128xf32>
    %18 = arith.mulf %16, %17 : tensor<64x128xf32>
    %19 = pallas.load %lse_ref[ds(%14, 64)] : !pallas.ref<256xf32> -> tensor<64xf32>
    %20 = pallas.load %delta_ref[ds(%14, 64)] : !pallas.ref<256xf32> -> tensor<64xf32>
    %21 = pallas.load %do_ref[ds(%14, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
    %22 = pallas.broadcast %19 dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %23 = arith.subf %18, %22 : tensor<64x128xf32>
    %24 = math.exp2 %23 : tensor<64x128xf32>
    %25 = arith.truncf %24 : tensor<64x128xf32> to tensor<64x128xbf16>
    %26 = pallas.dot %25, %21 {transpose_lhs} : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %27 = arith.addf %11, %26 : tensor<128x128xf32>
    %28 = arith.constant dense<0.0> : tensor<64x128xf32>
    %29 = pallas.broadcast %20 dims [0] : tensor<64xf32> -> tensor<64x128xf32>
    %30 = arith.subf %28, %29 : tensor<64x128xf32>
    %31 = pallas.dot %21, %4 {transpose_rhs} : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
    %32 = arith.addf %30, %31 : tensor<64x128xf32>
    %33 = arith.mulf %24, %32 : tensor<64x128xf32>
    %34 = arith.constant dense<0.088388346> : tensor<64x128xf32>
    %35 = arith.mulf %33, %34 : tensor<64x128xf32>
    %36 = arith.truncf %35 : tensor<64x128xf32> to tensor<64x128xbf16>
    %37 = pallas.dot %36, %15 {transpose_lhs} : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %38 = arith.addf %12, %37 : tensor<128x128xf32>
    %39 = pallas.dot %36, %3 : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
    %40 = pallas.atomic_rmw add %dq_acc_ref[ds(%14, 64), :], %39 : !pallas.ref<256x128xf32>, tensor<64x128xf32>
    scf.yield %27, %38 : tensor<128x128xf32>, tensor<128x128xf32>
  }
  %41 = arith.truncf %9#0 : tensor<128x128xf32> to tensor<128x128xbf16>
  pallas.store %dv_ref[...], %41 : !pallas.ref<128x128xbf16>, tensor<128x128xbf16>
  %42 = arith.truncf %9#1 : tensor<128x128xf32> to tensor<128x128xbf16>
  pallas.store %dk_ref[...], %42 : !pallas.ref<128x128xbf16>, tensor<128x128xbf16>
  pallas.return
}
