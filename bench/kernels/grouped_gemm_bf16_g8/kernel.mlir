// Grouped GEMM (a mixture of experts' layer, what ragged_dot computes):
// rows group_offsets[g] .. group_offsets[g+1] of x times w[g], 8 groups of
// uneven size. Program (t, j) computes one 128x256 tile: rows
// m_tile_ids[t]*128.. of x against group group_ids[t] (scalar prefetch,
// data-dependent index maps); a row tile straddling groups is visited once
// per group, and each visit stores only its group's rows (a masked store).
// Entries past the last tile name group 8 (none): their blocks lie
// outside w, and they store nothing.
func.func @x_block(%t: i32, %j: i32, %gid: !pallas.ref<135xi32, smem>, %mt: !pallas.ref<135xi32, smem>, %off: !pallas.ref<9xi32, smem>) -> (i32, i32) {
  %m = pallas.load %mt[%t] : !pallas.ref<135xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %m, %c0 : i32, i32
}
func.func @w_block(%t: i32, %j: i32, %gid: !pallas.ref<135xi32, smem>, %mt: !pallas.ref<135xi32, smem>, %off: !pallas.ref<9xi32, smem>) -> (i32, i32, i32) {
  %g = pallas.load %gid[%t] : !pallas.ref<135xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %g, %c0, %j : i32, i32, i32
}
func.func @z_block(%t: i32, %j: i32, %gid: !pallas.ref<135xi32, smem>, %mt: !pallas.ref<135xi32, smem>, %off: !pallas.ref<9xi32, smem>) -> (i32, i32) {
  %m = pallas.load %mt[%t] : !pallas.ref<135xi32, smem>, i32 -> i32
  return %m, %j : i32, i32
}
pallas.kernel @grouped_gemm(%gid: !pallas.ref<135xi32, smem>, %mt: !pallas.ref<135xi32, smem>, %off: !pallas.ref<9xi32, smem>,
                            %x: !pallas.ref<128x4096xbf16>, %w: !pallas.ref<4096x256xbf16>,
                            %z: !pallas.ref<128x256xbf16>) {
  %t = pallas.program_id 0 : i32
  %g = pallas.load %gid[%t] : !pallas.ref<135xi32, smem>, i32 -> i32
  %m = pallas.load %mt[%t] : !pallas.ref<135xi32, smem>, i32 -> i32
  %c1 = arith.constant 1 : i32
  %g1 = arith.addi %g, %c1 : i32
  // (The padding entries name group 8: their end is read as the
  // table's last entry, not one past it.)
  %glast = arith.constant 8 : i32
  %g1c = arith.minsi %g1, %glast : i32
  %lo = pallas.load %off[%g] : !pallas.ref<9xi32, smem>, i32 -> i32
  %hi = pallas.load %off[%g1c] : !pallas.ref<9xi32, smem>, i32 -> i32
  %a = pallas.load %x[...] : !pallas.ref<128x4096xbf16> -> tensor<128x4096xbf16>
  %b = pallas.load %w[...] : !pallas.ref<4096x256xbf16> -> tensor<4096x256xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = pallas.dot %a, %b acc %zero : tensor<128x4096xbf16>, tensor<4096x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
  %o = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  %c128 = arith.constant 128 : i32
  %first = arith.muli %m, %c128 : i32
  %iota = pallas.iota 0 : tensor<128x256xi32>
  %firsts = pallas.broadcast %first : i32 -> tensor<128x256xi32>
  %row = arith.addi %iota, %firsts : tensor<128x256xi32>
  %los = pallas.broadcast %lo : i32 -> tensor<128x256xi32>
  %his = pallas.broadcast %hi : i32 -> tensor<128x256xi32>
  %ge = arith.cmpi sge, %row, %los : tensor<128x256xi32>
  %lt = arith.cmpi slt, %row, %his : tensor<128x256xi32>
  %mine = arith.andi %ge, %lt : tensor<128x256xi1>
  pallas.store %z[...], %o mask %mine : !pallas.ref<128x256xbf16>, tensor<128x256xbf16>
  pallas.return
}
