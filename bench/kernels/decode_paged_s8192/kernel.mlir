// JAX's paged_attention kernel as pallasc_jax exports it (bench/gpu/export_decode.py):
// one query row per head, 32 query heads on 8 K/V heads (16 rows a block, 4 live),
// D = 128, bf16, B = 16, 8192 keys in pages of 16 rows from a block table, 8 pages
// gathered per step (one 128-row block), 16 splits.
pallas.kernel @paged_attention_block_h_16_pages_per_compute_block_8(
    %q_ref: !pallas.ref<16x128xbf16>,
    %k_pages_ref: !pallas.ref<8192x16x128xbf16>,
    %v_pages_ref: !pallas.ref<8192x16x128xbf16>,
    %block_tables_ref: !pallas.ref<32xi32>,
    %lengths_ref: !pallas.ref<1xi32>,
    %o_ref: !pallas.ref<16x128xbf16>,
    %residual_refs_0: !pallas.ref<16xf32>,
    %residual_refs_1: !pallas.ref<16xf32>) {
  %0 = pallas.program_id 3 : i32
  %1 = arith.constant dense<0.0> : tensor<16xf32>
  %2 = arith.constant dense<-3.4028235e+38> : tensor<16xf32>
  %3 = arith.addf %1, %2 : tensor<16xf32>
  %4 = arith.constant dense<0.0> : tensor<16x128xf32>
  %5 = arith.constant 32 : i32
  %6 = arith.muli %0, %5 : i32
  %7 = arith.addi %6, %5 : i32
  %8 = pallas.load %lengths_ref[0] : !pallas.ref<1xi32> -> i32
  %9 = arith.constant 15 : i32
  %10 = arith.addi %8, %9 : i32
  %11 = arith.constant 16 : i32
  %12 = arith.divsi %10, %11 : i32
  %13 = arith.minsi %12, %7 : i32
  %14 = arith.cmpi sge, %6, %13 : i32
  %15:3 = scf.if %14 -> (tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>) {
    scf.yield %4, %3, %1 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
  } else {
    %16 = pallas.load %q_ref[...] : !pallas.ref<16x128xbf16> -> tensor<16x128xbf16>
    %17 = arith.subi %13, %6 : i32
    %18 = arith.constant 7 : i32
    %19 = arith.addi %17, %18 : i32
    %20 = arith.constant 8 : i32
    %21 = arith.divsi %19, %20 : i32
    %22 = arith.constant 0 : i32
    %23 = arith.constant 1 : i32
    %24:3 = scf.for %25 = %22 to %21 step %23 iter_args(%26 = %4, %27 = %3, %28 = %1) -> (tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>) : i32 {
      %29 = arith.muli %25, %20 : i32
      %30 = pallas.load %block_tables_ref[ds(%29, 8)] : !pallas.ref<32xi32> -> tensor<8xi32>
      %31 = pallas.load %k_pages_ref[%30, :, :] : !pallas.ref<8192x16x128xbf16>, tensor<8xi32> -> tensor<8x16x128xbf16>
      %32 = pallas.reshape %31 : tensor<8x16x128xbf16> -> tensor<128x128xbf16>
      %33 = pallas.load %v_pages_ref[%30, :, :] : !pallas.ref<8192x16x128xbf16>, tensor<8xi32> -> tensor<8x16x128xbf16>
      %34 = pallas.reshape %33 : tensor<8x16x128xbf16> -> tensor<128x128xbf16>
      %35 = pallas.dot %16, %32 {transpose_rhs} : tensor<16x128xbf16>, tensor<128x128xbf16> -> tensor<16x128xf32>
      %36 = arith.muli %0, %5 : i32
      %37 = arith.muli %25, %20 : i32
      %38 = arith.addi %36, %37 : i32
      %39 = arith.muli %38, %11 : i32
      %40 = pallas.iota 0 : tensor<128xi32>
      %41 = pallas.broadcast %39 : i32 -> tensor<128xi32>
      %42 = arith.addi %40, %41 : tensor<128xi32>
      %43 = pallas.load %lengths_ref[0] : !pallas.ref<1xi32> -> i32
      %44 = pallas.broadcast %43 : i32 -> tensor<128xi32>
      %45 = arith.cmpi slt, %42, %44 : tensor<128xi32>
      %46 = arith.constant -2.3819763e+38 : f32
      %47 = pallas.broadcast %46 : f32 -> tensor<16x128xf32>
      %48 = pallas.broadcast %45 dims [1] : tensor<128xi1> -> tensor<16x128xi1>
      %49 = arith.select %48, %35, %47 : tensor<16x128xi1>, tensor<16x128xf32>
      %50 = pallas.reduce max %49 [1] : tensor<16x128xf32> -> tensor<16xf32>
      %51 = arith.maximumf %27, %50 : tensor<16xf32>
      %52 = arith.subf %27, %51 : tensor<16xf32>
      %53 = arith.constant dense<1.442695> : tensor<16xf32>
      %54 = arith.mulf %52, %53 : tensor<16xf32>
      %55 = math.exp2 %54 : tensor<16xf32>
      %56 = arith.mulf %55, %28 : tensor<16xf32>
      %57 = pallas.broadcast %51 dims [0] : tensor<16xf32> -> tensor<16x128xf32>
      %58 = arith.subf %49, %57 : tensor<16x128xf32>
      %59 = arith.constant dense<1.442695> : tensor<16x128xf32>
      %60 = arith.mulf %58, %59 : tensor<16x128xf32>
      %61 = math.exp2 %60 : tensor<16x128xf32>
      %62 = pallas.reduce sum %61 [1] : tensor<16x128xf32> -> tensor<16xf32>
      %63 = arith.addf %56, %62 : tensor<16xf32>
      %64 = pallas.broadcast %55 dims [0] : tensor<16xf32> -> tensor<16x128xf32>
      %65 = arith.mulf %64, %26 : tensor<16x128xf32>
      %66 = arith.truncf %61 : tensor<16x128xf32> to tensor<16x128xbf16>
      %67 = pallas.dot %66, %34 : tensor<16x128xbf16>, tensor<128x128xbf16> -> tensor<16x128xf32>
      %68 = arith.addf %65, %67 : tensor<16x128xf32>
      scf.yield %68, %51, %63 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
    }
    scf.yield %24#0, %24#1, %24#2 : tensor<16x128xf32>, tensor<16xf32>, tensor<16xf32>
  }
  %69 = arith.truncf %15#0 : tensor<16x128xf32> to tensor<16x128xbf16>
  pallas.store %o_ref[...], %69 : !pallas.ref<16x128xbf16>, tensor<16x128xbf16>
  pallas.store %residual_refs_0[...], %15#2 : !pallas.ref<16xf32>, tensor<16xf32>
  pallas.store %residual_refs_1[...], %15#1 : !pallas.ref<16xf32>, tensor<16xf32>
  pallas.return
}
