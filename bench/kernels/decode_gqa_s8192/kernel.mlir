// JAX's decode_attention.gqa kernel as pallasc_jax exports it (bench/gpu/export_decode.py):
// one query row per head, 32 query heads on 8 K/V heads (16 rows a block, 4 live),
// D = 128, bf16, B = 16, 8192 keys in 16 splits of 4 blocks of 128 rows.
pallas.kernel @mha_forward(
    %q_ref: !pallas.ref<16x128xbf16>,
    %k_ref: !pallas.ref<512x128xbf16>,
    %v_ref: !pallas.ref<512x128xbf16>,
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
  %13 = arith.constant 512 : i32
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
    %24 = arith.constant 127 : i32
    %25 = arith.addi %23, %24 : i32
    %26 = arith.constant 128 : i32
    %27 = arith.divsi %25, %26 : i32
    %28 = arith.minsi %27, %5 : i32
    %29 = arith.constant 0 : i32
    %30:3 = scf.for %31 = %29 to %28 step %15 iter_args(%32 = %12, %33 = %11, %34 = %9) -> (tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>) : i32 {
      %35 = arith.muli %31, %26 : i32
      %36 = pallas.load %k_ref[ds(%35, 128), :] : !pallas.ref<512x128xbf16> -> tensor<128x128xbf16>
      %37 = pallas.dot %21, %36 {transpose_rhs} : tensor<16x128xbf16>, tensor<128x128xbf16> -> tensor<16x128xf32>
      %38 = arith.constant dense<0.088388346> : tensor<16x128xf32>
      %39 = arith.mulf %37, %38 : tensor<16x128xf32>
      %40 = pallas.reduce max %39 [1] : tensor<16x128xf32> -> tensor<16xf32>
      %41 = arith.maximumf %33, %40 : tensor<16xf32>
      %42 = arith.subf %33, %41 : tensor<16xf32>
      %43 = math.exp %42 : tensor<16xf32>
      %44 = arith.mulf %43, %34 : tensor<16xf32>
      %45 = pallas.broadcast %41 dims [0] : tensor<16xf32> -> tensor<16x128xf32>
      %46 = arith.subf %39, %45 : tensor<16x128xf32>
      %47 = math.exp %46 : tensor<16x128xf32>
      %48 = pallas.reduce sum %47 [1] : tensor<16x128xf32> -> tensor<16xf32>
      %49 = arith.addf %44, %48 : tensor<16xf32>
      %50 = pallas.load %v_ref[ds(%35, 128), :] : !pallas.ref<512x128xbf16> -> tensor<128x128xbf16>
      %51 = arith.truncf %47 : tensor<16x128xf32> to tensor<16x128xbf16>
      %52 = pallas.dot %51, %50 : tensor<16x128xbf16>, tensor<128x128xbf16> -> tensor<16x128xf32>
      %53 = pallas.broadcast %43 dims [0] : tensor<16xf32> -> tensor<16x128xf32>
      %54 = arith.mulf %53, %32 : tensor<16x128xf32>
      %55 = arith.addf %54, %52 : tensor<16x128xf32>
      scf.yield %55, %41, %49 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
    }
    scf.yield %30#0, %30#1, %30#2 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
  }
  %56 = pallas.broadcast %8 dims [0] : tensor<16xi1> -> tensor<16x1xi1>
  %57 = pallas.reshape %56 : tensor<16x1xi1> -> tensor<16xi1>
  pallas.store %residual_refs_0[...], %19#2 mask %57 : !pallas.ref<16xf32>, tensor<16xf32>
  pallas.store %residual_refs_1[...], %19#1 mask %57 : !pallas.ref<16xf32>, tensor<16xf32>
  %58 = arith.truncf %19#0 : tensor<16x128xf32> to tensor<16x128xbf16>
  %59 = pallas.broadcast %8 dims [0] : tensor<16xi1> -> tensor<16x128xi1>
  pallas.store %o_ref[...], %58 mask %59 : !pallas.ref<16x128xbf16>, tensor<16x128xbf16>
  pallas.return
}
