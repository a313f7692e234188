// z = c + x @ y with K as a sequential grid axis: the first program starts
// the scratch accumulator from c's block, the last one writes z's.
pallas.kernel @gemm_grid_k_acc(%x: !pallas.ref<128x64xbf16>, %y: !pallas.ref<64x256xbf16>,
                               %c: !pallas.ref<128x256xf32>, %z: !pallas.ref<128x256xf32>,
                               %acc: !pallas.ref<128x256xf32, vmem>) {
  %k = pallas.program_id 2 : i32
  %nk = pallas.num_programs 2 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %first = arith.cmpi eq, %k, %c0 : i32
  scf.if %first {
    %init = pallas.load %c[...] : !pallas.ref<128x256xf32> -> tensor<128x256xf32>
    pallas.store %acc[...], %init : !pallas.ref<128x256xf32, vmem>, tensor<128x256xf32>
  }
  %a = pallas.load %x[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %b = pallas.load %y[...] : !pallas.ref<64x256xbf16> -> tensor<64x256xbf16>
  %old = pallas.load %acc[...] : !pallas.ref<128x256xf32, vmem> -> tensor<128x256xf32>
  %new = pallas.dot %a, %b acc %old : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  pallas.store %acc[...], %new : !pallas.ref<128x256xf32, vmem>, tensor<128x256xf32>
  %klast = arith.subi %nk, %c1 : i32
  %last = arith.cmpi eq, %k, %klast : i32
  scf.if %last {
    %r = pallas.load %acc[...] : !pallas.ref<128x256xf32, vmem> -> tensor<128x256xf32>
    pallas.store %z[...], %r : !pallas.ref<128x256xf32>, tensor<128x256xf32>
  }
  pallas.return
}
