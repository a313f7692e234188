// JAX's mha (ops/gpu/attention.py, block 64, 4 warps) as pallasc_jax exports it.
pallas.kernel @mha_forward(
    %q_ref: !pallas.ref<64x64xf16>,
    %k_ref: !pallas.ref<128x64xf16>,
    %v_ref: !pallas.ref<128x64xf16>,
    %o_ref: !pallas.ref<64x64xf16>) {
  %0 = arith.constant dense<0.0> : tensor<64xf32>
  %1 = arith.constant dense<0x7F800000> : tensor<64xf32>
  %2 = arith.subf %0, %1 : tensor<64xf32>
  %3 = arith.constant dense<0.0> : tensor<64x64xf32>
  %4 = pallas.iota 0 : tensor<64xi32>
  %5 = arith.constant dense<64> : tensor<64xi32>
  %6 = arith.cmpi slt, %4, %5 : tensor<64xi32>
  %7 = arith.constant dense<0.0> : tensor<64x64xf16>
  %8 = pallas.broadcast %6 dims [1] : tensor<64xi1> -> tensor<64x64xi1>
  %9 = pallas.load %q_ref[...] mask %8 other %7 : !pallas.ref<64x64xf16> -> tensor<64x64xf16>
  %10 = arith.constant 0 : i32
  %11 = arith.constant 2 : i32
  %12 = arith.constant 1 : i32
  %13:3 = scf.for %14 = %10 to %11 step %12 iter_args(%15 = %3, %16 = %2, %17 = %0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) : i32 {
    %18 = arith.constant 64 : i32
    %19 = arith.muli %14, %18 : i32
    %20 = pallas.load %k_ref[ds(%19, 64), :] mask %8 other %7 : !pallas.ref<128x64xf16> -> tensor<64x64xf16>
    %21 = pallas.dot %9, %20 {transpose_rhs} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %22 = arith.constant dense<0.18033688> : tensor<64x64xf32>
    %23 = arith.mulf %21, %22 : tensor<64x64xf32>
    %24 = pallas.reduce max %23 [1] : tensor<64x64xf32> -> tensor<64xf32>
    %25 = arith.maximumf %16, %24 : tensor<64xf32>
    %26 = arith.subf %16, %25 : tensor<64xf32>
    %27 = math.exp2 %26 : tensor<64xf32>
    %28 = arith.mulf %27, %17 : tensor<64xf32>
    %29 = pallas.broadcast %25 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %30 = arith.subf %23, %29 : tensor<64x64xf32>
    %31 = math.exp2 %30 : tensor<64x64xf32>
    %32 = pallas.reduce sum %31 [1] : tensor<64x64xf32> -> tensor<64xf32>
    %33 = arith.addf %28, %32 : tensor<64xf32>
    %34 = pallas.broadcast %27 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %35 = arith.mulf %34, %15 : tensor<64x64xf32>
    %36 = pallas.load %v_ref[ds(%19, 64), :] mask %8 : !pallas.ref<128x64xf16> -> tensor<64x64xf16>
    %37 = arith.truncf %31 : tensor<64x64xf32> to tensor<64x64xf16>
    %38 = pallas.dot %37, %36 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %39 = arith.addf %35, %38 : tensor<64x64xf32>
    scf.yield %39, %25, %33 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  %40 = pallas.broadcast %13#2 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
  %41 = arith.divf %13#0, %40 : tensor<64x64xf32>
  %42 = arith.truncf %41 : tensor<64x64xf32> to tensor<64x64xf16>
  pallas.store %o_ref[...], %42 mask %8 : !pallas.ref<64x64xf16>, tensor<64x64xf16>
  pallas.return
}
