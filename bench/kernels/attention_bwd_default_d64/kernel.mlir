// JAX's flash attention backward (jax.experimental.pallas.ops.gpu.attention,
// mha_backward_kernel) as mha calls it with no block sizes: 32-row key and
// query blocks in both scans, 4 warps; bf16, D = 64, B = 1, S = 1024,
// H = 4. Exported by pallasc_jax --vjp (bench/gpu/attention_train.py,
// d64_default). On sm_90a pallas-merge-row-programs runs two programs as
// one over 64 rows; its code fits three CTAs an SM in 168 registers a
// thread (two at the 176 ptxas takes unasked).
pallas.kernel @mha_backward(
    %q_ref: !pallas.ref<1024x64xbf16>,
    %k_ref: !pallas.ref<1024x64xbf16>,
    %v_ref: !pallas.ref<1024x64xbf16>,
    %out_ref: !pallas.ref<1024x64xbf16>,
    %do_scaled_ref: !pallas.ref<1024x64xbf16>,
    %lse_ref: !pallas.ref<1024xf32>,
    %delta_ref: !pallas.ref<1024xf32>,
    %dq_ref: !pallas.ref<32x64xbf16>,
    %dk_ref: !pallas.ref<32x64xbf16>,
    %dv_ref: !pallas.ref<32x64xbf16>) {
  %0 = pallas.program_id 2 : i32
  %1 = arith.constant 32 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = arith.constant dense<0.0> : tensor<32x64xf32>
  %4 = pallas.iota 0 : tensor<64xi32>
  %5 = arith.constant dense<64> : tensor<64xi32>
  %6 = arith.cmpi slt, %4, %5 : tensor<64xi32>
  %7 = arith.constant dense<0.0> : tensor<32x64xbf16>
  %8 = pallas.broadcast %6 dims [1] : tensor<64xi1> -> tensor<32x64xi1>
  %9 = pallas.load %v_ref[ds(%2, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
  %10 = pallas.load %k_ref[ds(%2, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
  %11 = arith.constant 0 : i32
  %12 = arith.constant 1 : i32
  %13:2 = scf.for %14 = %11 to %1 step %12 iter_args(%15 = %3, %16 = %3) -> (tensor<32x64xf32>, tensor<32x64xf32>) : i32 {
    %17 = arith.muli %14, %1 : i32
    %18 = pallas.load %q_ref[ds(%17, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
    %19 = pallas.dot %18, %10 {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %20 = arith.constant dense<0.18033688> : tensor<32x32xf32>
    %21 = arith.mulf %19, %20 : tensor<32x32xf32>
    %22 = pallas.load %lse_ref[ds(%17, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
    %23 = pallas.load %delta_ref[ds(%17, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
    %24 = pallas.load %do_scaled_ref[ds(%17, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
    %25 = pallas.broadcast %22 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %26 = arith.subf %21, %25 : tensor<32x32xf32>
    %27 = math.exp2 %26 : tensor<32x32xf32>
    %28 = arith.truncf %27 : tensor<32x32xf32> to tensor<32x32xbf16>
    %29 = pallas.dot %28, %24 {transpose_lhs} : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %30 = arith.addf %15, %29 : tensor<32x64xf32>
    %31 = arith.constant dense<0.0> : tensor<32x32xf32>
    %32 = pallas.broadcast %23 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %33 = arith.subf %31, %32 : tensor<32x32xf32>
    %34 = pallas.dot %24, %9 {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %35 = arith.addf %33, %34 : tensor<32x32xf32>
    %36 = arith.mulf %27, %35 : tensor<32x32xf32>
    %37 = arith.constant dense<0.125> : tensor<32x32xf32>
    %38 = arith.mulf %36, %37 : tensor<32x32xf32>
    %39 = arith.truncf %38 : tensor<32x32xf32> to tensor<32x32xbf16>
    %40 = pallas.dot %39, %18 {transpose_lhs} : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %41 = arith.addf %16, %40 : tensor<32x64xf32>
    scf.yield %30, %41 : tensor<32x64xf32>, tensor<32x64xf32>
  }
  %42 = arith.truncf %13#0 : tensor<32x64xf32> to tensor<32x64xbf16>
  pallas.store %dv_ref[...], %42 mask %8 : !pallas.ref<32x64xbf16>, tensor<32x64xbf16>
  %43 = arith.truncf %13#1 : tensor<32x64xf32> to tensor<32x64xbf16>
  pallas.store %dk_ref[...], %43 mask %8 : !pallas.ref<32x64xbf16>, tensor<32x64xbf16>
  %44 = arith.muli %0, %1 : i32
  %45 = pallas.load %q_ref[ds(%44, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
  %46 = pallas.load %lse_ref[ds(%44, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
  %47 = pallas.load %do_scaled_ref[ds(%44, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
  %48 = pallas.load %delta_ref[ds(%44, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
  %49 = scf.for %50 = %11 to %1 step %12 iter_args(%51 = %3) -> (tensor<32x64xf32>) : i32 {
    %52 = arith.muli %50, %1 : i32
    %53 = pallas.load %k_ref[ds(%52, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
    %54 = pallas.load %v_ref[ds(%52, 32), :] mask %8 other %7 : !pallas.ref<1024x64xbf16> -> tensor<32x64xbf16>
    %55 = pallas.dot %45, %53 {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %56 = arith.constant dense<0.18033688> : tensor<32x32xf32>
    %57 = arith.mulf %55, %56 : tensor<32x32xf32>
    %58 = pallas.broadcast %46 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %59 = arith.subf %57, %58 : tensor<32x32xf32>
    %60 = math.exp2 %59 : tensor<32x32xf32>
    %61 = arith.constant dense<0.0> : tensor<32x32xf32>
    %62 = pallas.broadcast %48 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %63 = arith.subf %61, %62 : tensor<32x32xf32>
    %64 = pallas.dot %47, %54 {transpose_rhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<32x32xf32>
    %65 = arith.addf %63, %64 : tensor<32x32xf32>
    %66 = arith.mulf %60, %65 : tensor<32x32xf32>
    %67 = arith.constant dense<0.125> : tensor<32x32xf32>
    %68 = arith.mulf %66, %67 : tensor<32x32xf32>
    %69 = arith.truncf %68 : tensor<32x32xf32> to tensor<32x32xbf16>
    %70 = pallas.dot %69, %53 : tensor<32x32xbf16>, tensor<32x64xbf16> -> tensor<32x64xf32>
    %71 = arith.addf %51, %70 : tensor<32x64xf32>
    scf.yield %71 : tensor<32x64xf32>
  }
  %72 = arith.truncf %49 : tensor<32x64xf32> to tensor<32x64xbf16>
  pallas.store %dq_ref[...], %72 mask %8 : !pallas.ref<32x64xbf16>, tensor<32x64xbf16>
  pallas.return
}
