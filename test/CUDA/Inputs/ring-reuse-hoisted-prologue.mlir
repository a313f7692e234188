// (test/CUDA/ring-reuse.test) Two K loops staged by cp.async, as
// pallas-stage-loads writes them from ring-reuse-two-loops.mlir, except
// that the second loop's prologue (its rings and first copies) comes
// before the wait for all of the first loop's copies (pending 2: the
// prologue's two groups): the first loop's last copies, issued past its
// end, may still land in its rings while the second's are filled.
module {
  tt.func public @dot_loop(%arg0: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg4: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg5: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "dot_loop", grid = [1]>} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 4 : i32
    %c32_i32 = arith.constant 32 : i32
    %c64_i32 = arith.constant 64 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %2 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %cst_0 = arith.constant dense<128> : tensor<64x1xi32>
    %3 = arith.muli %2, %cst_0 : tensor<64x1xi32>
    %4 = tt.expand_dims %1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %5 = tt.broadcast %3 : tensor<64x1xi32> -> tensor<64x32xi32>
    %6 = tt.broadcast %4 : tensor<1x32xi32> -> tensor<64x32xi32>
    %7 = arith.addi %5, %6 : tensor<64x32xi32>
    %8 = tt.splat %arg0 : !tt.ptr<bf16> -> tensor<64x32x!tt.ptr<bf16>>
    %9 = tt.addptr %8, %7 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %10 = tt.expand_dims %1 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %cst_1 = arith.constant dense<64> : tensor<32x1xi32>
    %11 = arith.muli %10, %cst_1 : tensor<32x1xi32>
    %12 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %13 = tt.broadcast %11 : tensor<32x1xi32> -> tensor<32x64xi32>
    %14 = tt.broadcast %12 : tensor<1x64xi32> -> tensor<32x64xi32>
    %15 = arith.addi %13, %14 : tensor<32x64xi32>
    %16 = tt.splat %arg1 : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
    %17 = tt.addptr %16, %15 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    %18 = tt.splat %arg4 : !tt.ptr<bf16> -> tensor<64x32x!tt.ptr<bf16>>
    %19 = tt.addptr %18, %7 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %20 = tt.splat %arg5 : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
    %21 = tt.addptr %20, %15 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    %22 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %cst_2 = arith.constant dense<64> : tensor<64x1xi32>
    %23 = arith.muli %22, %cst_2 : tensor<64x1xi32>
    %24 = tt.broadcast %23 : tensor<64x1xi32> -> tensor<64x64xi32>
    %25 = tt.broadcast %12 : tensor<1x64xi32> -> tensor<64x64xi32>
    %26 = arith.addi %24, %25 : tensor<64x64xi32>
    %27 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %28 = tt.addptr %27, %26 : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    %29 = tt.splat %arg3 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %30 = tt.addptr %29, %26 : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    %cast = tensor.cast %cst : tensor<64x64xf32> to tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
    %c1_i32_3 = arith.constant 1 : i32
    %31 = arith.subi %c4_i32, %c1_i32_3 : i32
    %32 = pallas_gpu.alloc_ring : <3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
    %33 = pallas_gpu.alloc_ring : <3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
    %c0_i32_4 = arith.constant 0 : i32
    %34 = arith.muli %c1_i32, %c0_i32_4 : i32
    %35 = arith.addi %c0_i32, %34 : i32
    %c0_i32_5 = arith.constant 0 : i32
    %36 = arith.cmpi slt, %35, %c4_i32 : i32
    %37 = arith.minsi %35, %31 : i32
    %38 = arith.muli %37, %c32_i32 : i32
    %39 = tt.splat %38 : i32 -> tensor<64x32xi32>
    %40 = tt.addptr %9, %39 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %41 = arith.muli %38, %c64_i32 : i32
    %42 = tt.splat %41 : i32 -> tensor<32x64xi32>
    %43 = tt.addptr %17, %42 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    pallas_gpu.async_copy %40 into %32[%c0_i32_5] if %36 : tensor<64x32x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
    pallas_gpu.async_copy %43 into %33[%c0_i32_5] if %36 : tensor<32x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
    pallas_gpu.async_commit
    %c1_i32_6 = arith.constant 1 : i32
    %44 = arith.muli %c1_i32, %c1_i32_6 : i32
    %45 = arith.addi %c0_i32, %44 : i32
    %c1_i32_7 = arith.constant 1 : i32
    %46 = arith.cmpi slt, %45, %c4_i32 : i32
    %47 = arith.minsi %45, %31 : i32
    %48 = arith.muli %47, %c32_i32 : i32
    %49 = tt.splat %48 : i32 -> tensor<64x32xi32>
    %50 = tt.addptr %9, %49 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %51 = arith.muli %48, %c64_i32 : i32
    %52 = tt.splat %51 : i32 -> tensor<32x64xi32>
    %53 = tt.addptr %17, %52 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    pallas_gpu.async_copy %50 into %32[%c1_i32_7] if %46 : tensor<64x32x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
    pallas_gpu.async_copy %53 into %33[%c1_i32_7] if %46 : tensor<32x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
    pallas_gpu.async_commit
    %c0_i32_8 = arith.constant 0 : i32
    %54:2 = scf.for %arg6 = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%arg7 = %cast, %arg8 = %c0_i32_8) -> (tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>, i32)  : i32 {
      pallas_gpu.async_wait 1
      %c0_i32_17 = arith.constant 0 : i32
      %80 = arith.cmpi eq, %arg8, %c0_i32_17 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_18 = arith.constant 1 : i32
      %81 = arith.subi %arg8, %c1_i32_18 : i32
      %82 = arith.select %80, %c2_i32, %81 : i32
      %c2_i32_19 = arith.constant 2 : i32
      %83 = arith.muli %c1_i32, %c2_i32_19 : i32
      %84 = arith.addi %arg6, %83 : i32
      %85 = arith.cmpi slt, %84, %c4_i32 : i32
      %86 = arith.minsi %84, %31 : i32
      %87 = arith.muli %86, %c32_i32 : i32
      %88 = tt.splat %87 : i32 -> tensor<64x32xi32>
      %89 = tt.addptr %9, %88 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %90 = arith.muli %87, %c64_i32 : i32
      %91 = tt.splat %90 : i32 -> tensor<32x64xi32>
      %92 = tt.addptr %17, %91 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
      pallas_gpu.async_copy %89 into %32[%82] if %85 : tensor<64x32x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
      pallas_gpu.async_copy %92 into %33[%82] if %85 : tensor<32x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
      pallas_gpu.async_commit
      %93 = tt.splat %arg6 : i32 -> tensor<64x64xi32>
      %94 = tt.addptr %30, %93 : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
      tt.store %94, %cst : tensor<64x64x!tt.ptr<f32>>
      %95 = arith.muli %arg6, %c32_i32 : i32
      %96 = tt.splat %95 : i32 -> tensor<64x32xi32>
      %97 = tt.addptr %9, %96 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %98 = pallas_gpu.ring_read %32[%arg8] : !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>> -> tensor<64x32xbf16>
      %99 = arith.muli %95, %c64_i32 : i32
      %100 = tt.splat %99 : i32 -> tensor<32x64xi32>
      %101 = tt.addptr %17, %100 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
      %102 = pallas_gpu.ring_read %33[%arg8] : !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>> -> tensor<32x64xbf16>
      %103 = tt.dot %98, %102, %arg7 : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
      %c1_i32_20 = arith.constant 1 : i32
      %104 = arith.addi %arg8, %c1_i32_20 : i32
      %c3_i32 = arith.constant 3 : i32
      %105 = arith.cmpi eq, %104, %c3_i32 : i32
      %c0_i32_21 = arith.constant 0 : i32
      %106 = arith.select %105, %c0_i32_21, %104 : i32
      scf.yield %103, %106 : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>, i32
    } {pallas_gpu.pipelined}
    %cast_9 = tensor.cast %cst : tensor<64x64xf32> to tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
    %c1_i32_10 = arith.constant 1 : i32
    %55 = arith.subi %c4_i32, %c1_i32_10 : i32
    %56 = pallas_gpu.alloc_ring : <3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
    %57 = pallas_gpu.alloc_ring : <3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
    %c0_i32_11 = arith.constant 0 : i32
    %58 = arith.muli %c1_i32, %c0_i32_11 : i32
    %59 = arith.addi %c0_i32, %58 : i32
    %c0_i32_12 = arith.constant 0 : i32
    %60 = arith.cmpi slt, %59, %c4_i32 : i32
    %61 = arith.minsi %59, %55 : i32
    %62 = arith.muli %61, %c32_i32 : i32
    %63 = tt.splat %62 : i32 -> tensor<64x32xi32>
    %64 = tt.addptr %19, %63 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %65 = arith.muli %62, %c64_i32 : i32
    %66 = tt.splat %65 : i32 -> tensor<32x64xi32>
    %67 = tt.addptr %21, %66 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    pallas_gpu.async_copy %64 into %56[%c0_i32_12] if %60 : tensor<64x32x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
    pallas_gpu.async_copy %67 into %57[%c0_i32_12] if %60 : tensor<32x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
    pallas_gpu.async_commit
    %c1_i32_13 = arith.constant 1 : i32
    %68 = arith.muli %c1_i32, %c1_i32_13 : i32
    %69 = arith.addi %c0_i32, %68 : i32
    %c1_i32_14 = arith.constant 1 : i32
    %70 = arith.cmpi slt, %69, %c4_i32 : i32
    %71 = arith.minsi %69, %55 : i32
    %72 = arith.muli %71, %c32_i32 : i32
    %73 = tt.splat %72 : i32 -> tensor<64x32xi32>
    %74 = tt.addptr %19, %73 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %75 = arith.muli %72, %c64_i32 : i32
    %76 = tt.splat %75 : i32 -> tensor<32x64xi32>
    %77 = tt.addptr %21, %76 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    pallas_gpu.async_copy %74 into %56[%c1_i32_14] if %70 : tensor<64x32x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
    pallas_gpu.async_copy %77 into %57[%c1_i32_14] if %70 : tensor<32x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
    pallas_gpu.async_commit
    %c0_i32_15 = arith.constant 0 : i32
    pallas_gpu.async_wait 2
    %78:2 = scf.for %arg6 = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%arg7 = %cast_9, %arg8 = %c0_i32_15) -> (tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>, i32)  : i32 {
      pallas_gpu.async_wait 1
      %c0_i32_17 = arith.constant 0 : i32
      %80 = arith.cmpi eq, %arg8, %c0_i32_17 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_18 = arith.constant 1 : i32
      %81 = arith.subi %arg8, %c1_i32_18 : i32
      %82 = arith.select %80, %c2_i32, %81 : i32
      %c2_i32_19 = arith.constant 2 : i32
      %83 = arith.muli %c1_i32, %c2_i32_19 : i32
      %84 = arith.addi %arg6, %83 : i32
      %85 = arith.cmpi slt, %84, %c4_i32 : i32
      %86 = arith.minsi %84, %55 : i32
      %87 = arith.muli %86, %c32_i32 : i32
      %88 = tt.splat %87 : i32 -> tensor<64x32xi32>
      %89 = tt.addptr %19, %88 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %90 = arith.muli %87, %c64_i32 : i32
      %91 = tt.splat %90 : i32 -> tensor<32x64xi32>
      %92 = tt.addptr %21, %91 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
      pallas_gpu.async_copy %89 into %56[%82] if %85 : tensor<64x32x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>>
      pallas_gpu.async_copy %92 into %57[%82] if %85 : tensor<32x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
      pallas_gpu.async_commit
      %93 = arith.muli %arg6, %c32_i32 : i32
      %94 = tt.splat %93 : i32 -> tensor<64x32xi32>
      %95 = tt.addptr %19, %94 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
      %96 = pallas_gpu.ring_read %56[%arg8] : !pallas_gpu.ring<3, tensor<64x32xbf16, #pallas_gpu.shared<core_matrices>>> -> tensor<64x32xbf16>
      %97 = arith.muli %93, %c64_i32 : i32
      %98 = tt.splat %97 : i32 -> tensor<32x64xi32>
      %99 = tt.addptr %21, %98 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
      %100 = pallas_gpu.ring_read %57[%arg8] : !pallas_gpu.ring<3, tensor<32x64xbf16, #pallas_gpu.shared<swizzle_128b>>> -> tensor<32x64xbf16>
      %101 = tt.dot %96, %100, %arg7 : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
      %c1_i32_20 = arith.constant 1 : i32
      %102 = arith.addi %arg8, %c1_i32_20 : i32
      %c3_i32 = arith.constant 3 : i32
      %103 = arith.cmpi eq, %102, %c3_i32 : i32
      %c0_i32_21 = arith.constant 0 : i32
      %104 = arith.select %103, %c0_i32_21, %102 : i32
      scf.yield %101, %104 : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>, i32
    } {pallas_gpu.pipelined}
    pallas_gpu.async_wait 0
    %79 = arith.addf %54#0, %78#0 : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>>
    %cast_16 = tensor.cast %79 : tensor<64x64xf32, #pallas_gpu.wgmma<warps = 4>> to tensor<64x64xf32>
    tt.store %28, %cast_16 : tensor<64x64x!tt.ptr<f32>>
    tt.return
  }
}

