// As attention_backward_dq_atomic.mlir at D = 128: the dQ tile added into
// the float32 accumulator each iteration is 64 x 128 f32 (32 KB).
pallas.kernel @mha_dq_atomic_backward(
    %q_ref: !pallas.ref<256x128xbf16>,
    %k_ref: !pallas.ref<256x128xbf16>,
    %v_ref: !pallas.ref<256x128xbf16>,
    %do_ref: !pallas.ref<256x128xbf16>,
    %lse_ref: !pallas.ref<256xf32>,
    %delta_ref: !pallas.ref<256xf32>,
    %dq_in_ref: !pallas.ref<256x128xf32>,
    %dq_acc_ref: !pallas.ref<256x128xf32>,
    %dk_ref: !pallas.ref<64x128xbf16>,
    %dv_ref: !pallas.ref<64x128xbf16>) {
  %0 = pallas.program_id 2 : i32
  %1 = arith.constant 64 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = pallas.load %k_ref[ds(%2, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
  %4 = pallas.load %v_ref[ds(%2, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
  %5 = arith.constant dense<0.0> : tensor<64x128xf32>
  %6 = arith.constant 0 : i32
  %7 = arith.constant 4 : i32
  %8 = arith.constant 1 : i32
  %9:2 = scf.for %10 = %6 to %7 step %8 iter_args(%11 = %5, %12 = %5) -> (tensor<64x128xf32>, tensor<64x128xf32>) : i32 {
    %13 = arith.muli %10, %1 : i32
    %14 = pallas.load %q_ref[ds(%13, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
    %15 = pallas.dot %14, %3 {transpose_rhs} : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
    %16 = arith.constant dense<0.12751743> : tensor<64x64xf32>
    %17 = arith.mulf %15, %16 : tensor<64x64xf32>
    %18 = pallas.load %lse_ref[ds(%13, 64)] : !pallas.ref<256xf32> -> tensor<64xf32>
    %19 = pallas.load %delta_ref[ds(%13, 64)] : !pallas.ref<256xf32> -> tensor<64xf32>
    %20 = pallas.load %do_ref[ds(%13, 64), :] : !pallas.ref<256x128xbf16> -> tensor<64x128xbf16>
    %21 = pallas.broadcast %18 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %22 = arith.subf %17, %21 : tensor<64x64xf32>
    %23 = math.exp2 %22 : tensor<64x64xf32>
    %24 = arith.truncf %23 : tensor<64x64xf32> to tensor<64x64xbf16>
    %25 = pallas.dot %24, %20 {transpose_lhs} : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    %26 = arith.addf %11, %25 : tensor<64x128xf32>
    %27 = arith.constant dense<0.0> : tensor<64x64xf32>
    %28 = pallas.broadcast %19 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %29 = arith.subf %27, %28 : tensor<64x64xf32>
    %30 = pallas.dot %20, %4 {transpose_rhs} : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
    %31 = arith.addf %29, %30 : tensor<64x64xf32>
    %32 = arith.mulf %23, %31 : tensor<64x64xf32>
    %33 = arith.constant dense<0.088388346> : tensor<64x64xf32>
    %34 = arith.mulf %32, %33 : tensor<64x64xf32>
    %35 = arith.truncf %34 : tensor<64x64xf32> to tensor<64x64xbf16>
    %36 = pallas.dot %35, %14 {transpose_lhs} : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    %37 = arith.addf %12, %36 : tensor<64x128xf32>
    %38 = pallas.dot %35, %3 : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    %39 = pallas.atomic_rmw add %dq_acc_ref[ds(%13, 64), :], %38 : !pallas.ref<256x128xf32>, tensor<64x128xf32>
    scf.yield %26, %37 : tensor<64x128xf32>, tensor<64x128xf32>
  }
  %40 = arith.truncf %9#0 : tensor<64x128xf32> to tensor<64x128xbf16>
  pallas.store %dv_ref[...], %40 : !pallas.ref<64x128xbf16>, tensor<64x128xbf16>
  %41 = arith.truncf %9#1 : tensor<64x128xf32> to tensor<64x128xbf16>
  pallas.store %dk_ref[...], %41 : !pallas.ref<64x128xbf16>, tensor<64x128xbf16>
  pallas.return
}
