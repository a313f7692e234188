// JAX's flash attention backward as mha calls it with causal=True and no
// block sizes: 32-row blocks in both scans, each scan's bound from the
// program id (dK/dV from the diagonal, dQ up to it), 4 warps; bf16,
// D = 128, B = 1, S = 1024, H = 4. Exported by pallasc_jax --vjp
// (bench/gpu/attention_train.py, d128_default_causal). On sm_90a
// pallas-merge-row-programs runs two programs as one over 64 rows, the
// trips only one of them runs guarded.
pallas.kernel @mha_backward(
    %q_ref: !pallas.ref<1024x128xbf16>,
    %k_ref: !pallas.ref<1024x128xbf16>,
    %v_ref: !pallas.ref<1024x128xbf16>,
    %out_ref: !pallas.ref<1024x128xbf16>,
    %do_scaled_ref: !pallas.ref<1024x128xbf16>,
    %lse_ref: !pallas.ref<1024xf32>,
    %delta_ref: !pallas.ref<1024xf32>,
    %dq_ref: !pallas.ref<32x128xbf16>,
    %dk_ref: !pallas.ref<32x128xbf16>,
    %dv_ref: !pallas.ref<32x128xbf16>) {
  %0 = pallas.program_id 2 : i32
  %1 = arith.constant 32 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = arith.constant dense<0.0> : tensor<32x128xf32>
  %4 = pallas.iota 0 : tensor<128xi32>
  %5 = arith.constant dense<128> : tensor<128xi32>
  %6 = arith.cmpi slt, %4, %5 : tensor<128xi32>
  %7 = arith.constant dense<0.0> : tensor<32x128xbf16>
  %8 = pallas.broadcast %6 dims [1] : tensor<128xi1> -> tensor<32x128xi1>
  %9 = pallas.load %v_ref[ds(%2, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
  %10 = pallas.load %k_ref[ds(%2, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
  %11 = arith.muli %0, %1 : i32
  %12 = pallas.iota 0 : tensor<32xi32>
  %13 = pallas.broadcast %11 : i32 -> tensor<32xi32>
  %14 = arith.addi %13, %12 : tensor<32xi32>
  %15 = arith.muli %0, %1 : i32
  %16 = arith.divsi %15, %1 : i32
  %17 = arith.constant 1 : i32
  %18:2 = scf.for %19 = %16 to %1 step %17 iter_args(%20 = %3, %21 = %3) -> (tensor<32x128xf32>, tensor<32x128xf32>) : i32 {
    %22 = arith.muli %19, %1 : i32
    %23 = pallas.load %q_ref[ds(%22, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
    %24 = pallas.dot %23, %10 {transpose_rhs} : tensor<32x128xbf16>, tensor<32x128xbf16> -> tensor<32x32xf32>
    %25 = arith.constant dense<0.12751743> : tensor<32x32xf32>
    %26 = arith.mulf %24, %25 : tensor<32x32xf32>
    %27 = arith.muli %19, %1 : i32
    %28 = pallas.broadcast %27 : i32 -> tensor<32xi32>
    %29 = arith.addi %28, %12 : tensor<32xi32>
    %30 = pallas.broadcast %29 dims [0] : tensor<32xi32> -> tensor<32x32xi32>
    %31 = pallas.broadcast %14 dims [1] : tensor<32xi32> -> tensor<32x32xi32>
    %32 = arith.cmpi sge, %30, %31 : tensor<32x32xi32>
    %33 = arith.constant -2.3819763e+38 : f32
    %34 = pallas.broadcast %33 : f32 -> tensor<32x32xf32>
    %35 = arith.select %32, %26, %34 : tensor<32x32xi1>, tensor<32x32xf32>
    %36 = pallas.load %lse_ref[ds(%22, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
    %37 = pallas.load %delta_ref[ds(%22, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
    %38 = pallas.load %do_scaled_ref[ds(%22, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
    %39 = pallas.broadcast %36 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %40 = arith.subf %35, %39 : tensor<32x32xf32>
    %41 = math.exp2 %40 : tensor<32x32xf32>
    %42 = arith.truncf %41 : tensor<32x32xf32> to tensor<32x32xbf16>
    %43 = pallas.dot %42, %38 {transpose_lhs} : tensor<32x32xbf16>, tensor<32x128xbf16> -> tensor<32x128xf32>
    %44 = arith.addf %20, %43 : tensor<32x128xf32>
    %45 = arith.constant dense<0.0> : tensor<32x32xf32>
    %46 = pallas.broadcast %37 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %47 = arith.subf %45, %46 : tensor<32x32xf32>
    %48 = pallas.dot %38, %9 {transpose_rhs} : tensor<32x128xbf16>, tensor<32x128xbf16> -> tensor<32x32xf32>
    %49 = arith.addf %47, %48 : tensor<32x32xf32>
    %50 = arith.mulf %41, %49 : tensor<32x32xf32>
    %51 = arith.constant dense<0.088388346> : tensor<32x32xf32>
    %52 = arith.mulf %50, %51 : tensor<32x32xf32>
    %53 = arith.truncf %52 : tensor<32x32xf32> to tensor<32x32xbf16>
    %54 = pallas.dot %53, %23 {transpose_lhs} : tensor<32x32xbf16>, tensor<32x128xbf16> -> tensor<32x128xf32>
    %55 = arith.addf %21, %54 : tensor<32x128xf32>
    scf.yield %44, %55 : tensor<32x128xf32>, tensor<32x128xf32>
  }
  %56 = arith.truncf %18#0 : tensor<32x128xf32> to tensor<32x128xbf16>
  pallas.store %dv_ref[...], %56 mask %8 : !pallas.ref<32x128xbf16>, tensor<32x128xbf16>
  %57 = arith.truncf %18#1 : tensor<32x128xf32> to tensor<32x128xbf16>
  pallas.store %dk_ref[...], %57 mask %8 : !pallas.ref<32x128xbf16>, tensor<32x128xbf16>
  %58 = arith.muli %0, %1 : i32
  %59 = arith.muli %0, %1 : i32
  %60 = pallas.broadcast %59 : i32 -> tensor<32xi32>
  %61 = arith.addi %60, %12 : tensor<32xi32>
  %62 = pallas.load %q_ref[ds(%58, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
  %63 = pallas.load %lse_ref[ds(%58, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
  %64 = pallas.load %do_scaled_ref[ds(%58, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
  %65 = pallas.load %delta_ref[ds(%58, 32)] : !pallas.ref<1024xf32> -> tensor<32xf32>
  %66 = arith.addi %0, %17 : i32
  %67 = arith.muli %66, %1 : i32
  %68 = arith.constant 31 : i32
  %69 = arith.addi %67, %68 : i32
  %70 = arith.divsi %69, %1 : i32
  %71 = arith.constant 0 : i32
  %72 = scf.for %73 = %71 to %70 step %17 iter_args(%74 = %3) -> (tensor<32x128xf32>) : i32 {
    %75 = arith.muli %73, %1 : i32
    %76 = pallas.load %k_ref[ds(%75, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
    %77 = pallas.load %v_ref[ds(%75, 32), :] mask %8 other %7 : !pallas.ref<1024x128xbf16> -> tensor<32x128xbf16>
    %78 = pallas.dot %62, %76 {transpose_rhs} : tensor<32x128xbf16>, tensor<32x128xbf16> -> tensor<32x32xf32>
    %79 = arith.constant dense<0.12751743> : tensor<32x32xf32>
    %80 = arith.mulf %78, %79 : tensor<32x32xf32>
    %81 = arith.muli %73, %1 : i32
    %82 = pallas.broadcast %81 : i32 -> tensor<32xi32>
    %83 = arith.addi %82, %12 : tensor<32xi32>
    %84 = pallas.broadcast %61 dims [0] : tensor<32xi32> -> tensor<32x32xi32>
    %85 = pallas.broadcast %83 dims [1] : tensor<32xi32> -> tensor<32x32xi32>
    %86 = arith.cmpi sge, %84, %85 : tensor<32x32xi32>
    %87 = arith.constant -2.3819763e+38 : f32
    %88 = pallas.broadcast %87 : f32 -> tensor<32x32xf32>
    %89 = arith.select %86, %80, %88 : tensor<32x32xi1>, tensor<32x32xf32>
    %90 = pallas.broadcast %63 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %91 = arith.subf %89, %90 : tensor<32x32xf32>
    %92 = math.exp2 %91 : tensor<32x32xf32>
    %93 = arith.constant dense<0.0> : tensor<32x32xf32>
    %94 = pallas.broadcast %65 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %95 = arith.subf %93, %94 : tensor<32x32xf32>
    %96 = pallas.dot %64, %77 {transpose_rhs} : tensor<32x128xbf16>, tensor<32x128xbf16> -> tensor<32x32xf32>
    %97 = arith.addf %95, %96 : tensor<32x32xf32>
    %98 = arith.mulf %92, %97 : tensor<32x32xf32>
    %99 = arith.constant dense<0.088388346> : tensor<32x32xf32>
    %100 = arith.mulf %98, %99 : tensor<32x32xf32>
    %101 = arith.truncf %100 : tensor<32x32xf32> to tensor<32x32xbf16>
    %102 = pallas.dot %101, %76 : tensor<32x32xbf16>, tensor<32x128xbf16> -> tensor<32x128xf32>
    %103 = arith.addf %74, %102 : tensor<32x128xf32>
    scf.yield %103 : tensor<32x128xf32>
  }
  %104 = arith.truncf %72 : tensor<32x128xf32> to tensor<32x128xbf16>
  pallas.store %dq_ref[...], %104 mask %8 : !pallas.ref<32x128xbf16>, tensor<32x128xbf16>
  pallas.return
}
