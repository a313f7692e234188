// JAX's decode_attention.gqa kernel as pallasc_jax exports it (bench/gpu/export_decode.py):
// one query row per head, 32 query heads on 8 K/V heads (16 rows a block, 4 live),
// D = 128, bf16, B = 128, 1024 keys in 16 splits of 64 rows: each split's loop runs
// once (its bound is min(..., 1)), over a 64-row block.
pallas.kernel @mha_forward(
    %q_ref: !pallas.ref<16x128xbf16>,
    %k_ref: !pallas.ref<64x128xbf16>,
    %v_ref: !pallas.ref<64x128xbf16>,
    %o_ref: !pallas.ref<16x128xbf16>,
    %residual_refs_0: !pallas.ref<16xf32>,
    %residual_refs_1: !pallas.ref<16xf32>) {
  %0 = pallas.program_id 2 : i32
  %1 = pallas.program_id 3 : i32
  %2 = pallas.iota 0 : tensor<16xi32>
  %3 = arith.constant 16 : i32
  %4 = arith.muli %3, %0 : i32
  %5 = arith.constant 4 : i32
  %6 = arith.subi %5, %4 : i32
  %7 = pallas.broadcast %6 : i32 -> tensor<16xi32>
  %8 = arith.cmpi slt, %2, %7 : tensor<16xi32>
  %9 = arith.constant dense<0.0> : tensor<16xf32>
  %10 = arith.constant dense<-3.4028235e+38> : tensor<16xf32>
  %11 = arith.addf %9, %10 : tensor<16xf32>
  %12 = arith.constant dense<0.0> : tensor<16x128xf32>
  %13 = arith.constant 64 : i32
  %14 = arith.muli %13, %1 : i32
  %15 = arith.constant 1 : i32
  %16 = arith.addi %1, %15 : i32
  %17 = arith.muli %16, %13 : i32
  %18 = arith.cmpi sge, %14, %17 : i32
  %19:3 = scf.if %18 -> (tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>) {
    scf.yield %12, %11, %9 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
  } else {
    %20 = pallas.broadcast %8 dims [0] : tensor<16xi1> -> tensor<16x128xi1>
    %21 = pallas.load %q_ref[...] mask %20 : !pallas.ref<16x128xbf16> -> tensor<16x128xbf16>
    %22 = arith.muli %1, %13 : i32
    %23 = arith.subi %17, %22 : i32
    %24 = arith.constant 63 : i32
    %25 = arith.addi %23, %24 : i32
    %26 = arith.divsi %25, %13 : i32
    %27 = arith.minsi %26, %15 : i32
    %28 = arith.constant 0 : i32
    %29:3 = scf.for %30 = %28 to %27 step %15 iter_args(%31 = %12, %32 = %11, %33 = %9) -> (tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>) : i32 {
      %34 = arith.muli %30, %13 : i32
      %35 = pallas.load %k_ref[ds(%34, 64), :] : !pallas.ref<64x128xbf16> -> tensor<64x128xbf16>
      %36 = pallas.dot %21, %35 {transpose_rhs} : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<16x64xf32>
      %37 = arith.constant dense<0.088388346> : tensor<16x64xf32>
      %38 = arith.mulf %36, %37 : tensor<16x64xf32>
      %39 = pallas.reduce max %38 [1] : tensor<16x64xf32> -> tensor<16xf32>
      %40 = arith.maximumf %32, %39 : tensor<16xf32>
      %41 = arith.subf %32, %40 : tensor<16xf32>
      %42 = math.exp %41 : tensor<16xf32>
      %43 = arith.mulf %42, %33 : tensor<16xf32>
      %44 = pallas.broadcast %40 dims [0] : tensor<16xf32> -> tensor<16x64xf32>
      %45 = arith.subf %38, %44 : tensor<16x64xf32>
      %46 = math.exp %45 : tensor<16x64xf32>
      %47 = pallas.reduce sum %46 [1] : tensor<16x64xf32> -> tensor<16xf32>
      %48 = arith.addf %43, %47 : tensor<16xf32>
      %49 = pallas.load %v_ref[ds(%34, 64), :] : !pallas.ref<64x128xbf16> -> tensor<64x128xbf16>
      %50 = arith.truncf %46 : tensor<16x64xf32> to tensor<16x64xbf16>
      %51 = pallas.dot %50, %49 : tensor<16x64xbf16>, tensor<64x128xbf16> -> tensor<16x128xf32>
      %52 = pallas.broadcast %42 dims [0] : tensor<16xf32> -> tensor<16x128xf32>
      %53 = arith.mulf %52, %31 : tensor<16x128xf32>
      %54 = arith.addf %53, %51 : tensor<16x128xf32>
      scf.yield %54, %40, %48 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
    }
    scf.yield %29#0, %29#1, %29#2 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
  }
  %55 = pallas.broadcast %8 dims [0] : tensor<16xi1> -> tensor<16x1xi1>
  %56 = pallas.reshape %55 : tensor<16x1xi1> -> tensor<16xi1>
  pallas.store %residual_refs_0[...], %19#2 mask %56 : !pallas.ref<16xf32>, tensor<16xf32>
  pallas.store %residual_refs_1[...], %19#1 mask %56 : !pallas.ref<16xf32>, tensor<16xf32>
  %57 = arith.truncf %19#0 : tensor<16x128xf32> to tensor<16x128xbf16>
  %58 = pallas.broadcast %8 dims [0] : tensor<16xi1> -> tensor<16x128xi1>
  pallas.store %o_ref[...], %57 mask %58 : !pallas.ref<16x128xbf16>, tensor<16x128xbf16>
  pallas.return
}
