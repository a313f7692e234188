// The grouped GEMM of grouped_gemm_rows_bf16_g*, its K loop written out
// (a fori_loop of 64-wide dots) with a trip count from the tables: 0 for
// the entries past the last tile (group G), which so cost nothing.
func.func @w_block(%t: i32, %j: i32, %gid: !pallas.ref<192xi32, smem>, %first: !pallas.ref<192xi32, smem>, %off: !pallas.ref<65xi32, smem>) -> (i32, i32, i32) {
  %g = pallas.load %gid[%t] : !pallas.ref<192xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %g, %c0, %j : i32, i32, i32
}
pallas.kernel @grouped_gemm_rows(%gid: !pallas.ref<192xi32, smem>, %firsts: !pallas.ref<192xi32, smem>, %off: !pallas.ref<65xi32, smem>,
                            %x: !pallas.ref<16384x4096xbf16>, %w: !pallas.ref<4096x256xbf16>,
                            %z: !pallas.ref<16384x4096xbf16>) {
  %t = pallas.program_id 0 : i32
  %j = pallas.program_id 1 : i32
  %g = pallas.load %gid[%t] : !pallas.ref<192xi32, smem>, i32 -> i32
  %first = pallas.load %firsts[%t] : !pallas.ref<192xi32, smem>, i32 -> i32
  %c1 = arith.constant 1 : i32
  %g1 = arith.addi %g, %c1 : i32
  // (The padding entries name group 64: their end is read as the
  // table's last entry, not one past it.)
  %glast = arith.constant 64 : i32
  %g1c = arith.minsi %g1, %glast : i32
  %lo = pallas.load %off[%g] : !pallas.ref<65xi32, smem>, i32 -> i32
  %hi = pallas.load %off[%g1c] : !pallas.ref<65xi32, smem>, i32 -> i32
  %groups = arith.constant 64 : i32
  %live = arith.cmpi slt, %g, %groups : i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %steps = arith.select %live, %c64, %c0 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %kk = %c0 to %steps step %c1 iter_args(%part = %zero) -> (tensor<128x256xf32>) : i32 {
    %k0 = arith.muli %kk, %c64 : i32
    %a = pallas.load %x[ds(%first, 128), ds(%k0, 64)] : !pallas.ref<16384x4096xbf16> -> tensor<128x64xbf16>
    %b = pallas.load %w[ds(%k0, 64), :] : !pallas.ref<4096x256xbf16> -> tensor<64x256xbf16>
    %d = pallas.dot %a, %b acc %part : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %o = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  %iota = pallas.iota 0 : tensor<128x256xi32>
  %firstb = pallas.broadcast %first : i32 -> tensor<128x256xi32>
  %row = arith.addi %iota, %firstb : tensor<128x256xi32>
  %his = pallas.broadcast %hi : i32 -> tensor<128x256xi32>
  %los = pallas.broadcast %lo : i32 -> tensor<128x256xi32>
  %ge = arith.cmpi sge, %row, %los : tensor<128x256xi32>
  %lt = arith.cmpi slt, %row, %his : tensor<128x256xi32>
  %mine = arith.andi %ge, %lt : tensor<128x256xi1>
  %c256 = arith.constant 256 : i32
  %col = arith.muli %j, %c256 : i32
  pallas.store %z[ds(%first, 128), ds(%col, 256)], %o mask %mine : !pallas.ref<16384x4096xbf16>, tensor<128x256xbf16>
  pallas.return
}
