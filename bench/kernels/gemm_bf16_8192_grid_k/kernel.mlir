// A 8192^3 bf16 GEMM as the Pallas TPU tutorial writes it: a 3-D grid
// (i, j, k) whose k axis is sequential ("arbitrary"); an f32 scratch
// accumulator is zeroed at k == 0, gains one 128x256x64 dot per program
// and is written out at the last k.
pallas.kernel @gemm_grid_k(%x: !pallas.ref<128x64xbf16>, %y: !pallas.ref<64x256xbf16>,
                           %z: !pallas.ref<128x256xbf16>, %acc: !pallas.ref<128x256xf32, vmem>) {
  %k = pallas.program_id 2 : i32
  %nk = pallas.num_programs 2 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %first = arith.cmpi eq, %k, %c0 : i32
  scf.if %first {
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    pallas.store %acc[...], %zero : !pallas.ref<128x256xf32, vmem>, tensor<128x256xf32>
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
    %t = arith.truncf %r : tensor<128x256xf32> to tensor<128x256xbf16>
    pallas.store %z[...], %t : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  }
  pallas.return
}
