// One artifact for every M, N, K: the matmul of conformance/matmul_accumulate
// with symbolic sizes. K is the last ("arbitrary") grid axis; a scratch
// accumulator is zeroed at k == 0 and written out at the last k, whose
// number (num_programs 2 = cdiv(K, 64)) is known only at launch. Edge
// blocks read zeros past M, N and K and drop their writes past M and N.
pallas.kernel @matmul_symbolic(%x: !pallas.ref<64x64xbf16>, %y: !pallas.ref<64x64xbf16>,
                               %z: !pallas.ref<64x64xf32>, %acc: !pallas.ref<64x64xf32, vmem>) {
  %k = pallas.program_id 2 : i32
  %nk = pallas.num_programs 2 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %first = arith.cmpi eq, %k, %c0 : i32
  scf.if %first {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    pallas.store %acc[...], %zero : !pallas.ref<64x64xf32, vmem>, tensor<64x64xf32>
  }
  %a = pallas.load %x[...] : !pallas.ref<64x64xbf16> -> tensor<64x64xbf16>
  %b = pallas.load %y[...] : !pallas.ref<64x64xbf16> -> tensor<64x64xbf16>
  %old = pallas.load %acc[...] : !pallas.ref<64x64xf32, vmem> -> tensor<64x64xf32>
  %new = pallas.dot %a, %b acc %old : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  pallas.store %acc[...], %new : !pallas.ref<64x64xf32, vmem>, tensor<64x64xf32>
  %klast = arith.subi %nk, %c1 : i32
  %last = arith.cmpi eq, %k, %klast : i32
  scf.if %last {
    %v = pallas.load %acc[...] : !pallas.ref<64x64xf32, vmem> -> tensor<64x64xf32>
    pallas.store %z[...], %v : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  }
  pallas.return
}
