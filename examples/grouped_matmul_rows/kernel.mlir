// Grouped GEMM (a mixture of experts' layer, what ragged_dot computes):
// rows group_offsets[g] .. group_offsets[g+1] of x times w[g], in uneven
// groups, each group tiled from its own first row. Program (t, j)
// computes one row tile: rows first_rows[t] .. + 128 of x (a slice of
// the whole array from a start read from a table) against group
// group_ids[t] (scalar prefetch, a data-dependent index map), and stores
// the rows that are its group's (a masked store: the rest of the tile
// belongs to the next group, or lies past the array). Entries past the
// last tile name group G (none): their w block lies outside w, and they
// store nothing. examples/grouped_matmul is the same grouped
// GEMM with tiles aligned to 128 rows (the megablox tiling), so a tile
// straddling groups runs once per group.
func.func @w_block(%t: i32, %j: i32, %gid: !pallas.ref<9xi32, smem>, %first: !pallas.ref<9xi32, smem>, %off: !pallas.ref<6xi32, smem>) -> (i32, i32, i32) {
  %g = pallas.load %gid[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %g, %c0, %j : i32, i32, i32
}
pallas.kernel @grouped_gemm_rows(%gid: !pallas.ref<9xi32, smem>, %firsts: !pallas.ref<9xi32, smem>, %off: !pallas.ref<6xi32, smem>,
                            %x: !pallas.ref<520x256xbf16>, %w: !pallas.ref<256x256xbf16>,
                            %z: !pallas.ref<520x512xbf16>) {
  %t = pallas.program_id 0 : i32
  %j = pallas.program_id 1 : i32
  %g = pallas.load %gid[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  %first = pallas.load %firsts[%t] : !pallas.ref<9xi32, smem>, i32 -> i32
  %c1 = arith.constant 1 : i32
  %g1 = arith.addi %g, %c1 : i32
  // (The padding entries name group 5: their end is read as the
  // table's last entry, not one past it.)
  %glast = arith.constant 5 : i32
  %g1c = arith.minsi %g1, %glast : i32
  %lo = pallas.load %off[%g] : !pallas.ref<6xi32, smem>, i32 -> i32
  %hi = pallas.load %off[%g1c] : !pallas.ref<6xi32, smem>, i32 -> i32
  %a = pallas.load %x[ds(%first, 128), :] : !pallas.ref<520x256xbf16> -> tensor<128x256xbf16>
  %b = pallas.load %w[...] : !pallas.ref<256x256xbf16> -> tensor<256x256xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = pallas.dot %a, %b acc %zero : tensor<128x256xbf16>, tensor<256x256xbf16>, tensor<128x256xf32> -> tensor<128x256xf32>
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
  pallas.store %z[ds(%first, 128), ds(%col, 256)], %o mask %mine : !pallas.ref<520x512xbf16>, tensor<128x256xbf16>
  pallas.return
}
