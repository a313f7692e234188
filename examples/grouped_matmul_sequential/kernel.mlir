// The grouped GEMM of examples/grouped_matmul as the TPU's megablox `gmm`
// writes it: grid (n, t, k) with t and k sequential ("arbitrary"), an f32
// scratch accumulator zeroed at k == 0, and at the last k the row tile's
// output block merged by select: this group's rows from the accumulator,
// the others as the block holds them (a tile straddling groups is
// revisited by the next t, which keeps the previous group's rows).
func.func @x_block(%n: i32, %t: i32, %k: i32, %gid: !pallas.ref<9xi32, smem>, %mt: !pallas.ref<9xi32, smem>, %off: !pallas.ref<6xi32, smem>) -> (i32, i32) {
  %m = pallas.load %mt[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  return %m, %k : i32, i32
}
func.func @w_block(%n: i32, %t: i32, %k: i32, %gid: !pallas.ref<9xi32, smem>, %mt: !pallas.ref<9xi32, smem>, %off: !pallas.ref<6xi32, smem>) -> (i32, i32, i32) {
  %g = pallas.load %gid[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  return %g, %k, %n : i32, i32, i32
}
func.func @z_block(%n: i32, %t: i32, %k: i32, %gid: !pallas.ref<9xi32, smem>, %mt: !pallas.ref<9xi32, smem>, %off: !pallas.ref<6xi32, smem>) -> (i32, i32) {
  %m = pallas.load %mt[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  return %m, %n : i32, i32
}
pallas.kernel @grouped_gemm_sequential(%gid: !pallas.ref<9xi32, smem>, %mt: !pallas.ref<9xi32, smem>, %off: !pallas.ref<6xi32, smem>,
                   %x: !pallas.ref<128x128xbf16>, %w: !pallas.ref<128x256xbf16>,
                   %z: !pallas.ref<128x256xbf16>, %acc: !pallas.ref<128x256xf32, vmem>) {
  %t = pallas.program_id 1 : i32
  %k = pallas.program_id 2 : i32
  %nk = pallas.num_programs 2 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %first = arith.cmpi eq, %k, %c0 : i32
  scf.if %first {
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    pallas.store %acc[...], %zero : !pallas.ref<128x256xf32, vmem>, tensor<128x256xf32>
  }
  %a = pallas.load %x[...] : !pallas.ref<128x128xbf16> -> tensor<128x128xbf16>
  %b = pallas.load %w[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
  %old = pallas.load %acc[...] : !pallas.ref<128x256xf32, vmem> -> tensor<128x256xf32>
  %new = pallas.dot %a, %b acc %old : tensor<128x128xbf16>, tensor<128x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  pallas.store %acc[...], %new : !pallas.ref<128x256xf32, vmem>, tensor<128x256xf32>
  %klast = arith.subi %nk, %c1 : i32
  %last = arith.cmpi eq, %k, %klast : i32
  scf.if %last {
    %g = pallas.load %gid[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
    %m = pallas.load %mt[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
    %g1 = arith.addi %g, %c1 : i32
    // (The padding entries name group 5: their end is read as the
    // table's last entry, not one past it.)
    %glast = arith.constant 5 : i32
    %g1c = arith.minsi %g1, %glast : i32
    %lo = pallas.load %off[%g] : !pallas.ref<6xi32, smem>, i32 -> i32
    %hi = pallas.load %off[%g1c] : !pallas.ref<6xi32, smem>, i32 -> i32
    %c128 = arith.constant 128 : i32
    %base = arith.muli %m, %c128 : i32
    %iota = pallas.iota 0 : tensor<128x256xi32>
    %bases = pallas.broadcast %base : i32 -> tensor<128x256xi32>
    %row = arith.addi %iota, %bases : tensor<128x256xi32>
    %los = pallas.broadcast %lo : i32 -> tensor<128x256xi32>
    %his = pallas.broadcast %hi : i32 -> tensor<128x256xi32>
    %ge = arith.cmpi sge, %row, %los : tensor<128x256xi32>
    %lt = arith.cmpi slt, %row, %his : tensor<128x256xi32>
    %mine = arith.andi %ge, %lt : tensor<128x256xi1>
    %r = pallas.load %acc[...] : !pallas.ref<128x256xf32, vmem> -> tensor<128x256xf32>
    %nb = arith.truncf %r : tensor<128x256xf32> to tensor<128x256xbf16>
    %prev = pallas.load %z[...] : !pallas.ref<128x256xbf16> -> tensor<128x256xbf16>
    %sel = arith.select %mine, %nb, %prev : tensor<128x256xi1>, tensor<128x256xbf16>
    pallas.store %z[...], %sel : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  }
  pallas.return
}
