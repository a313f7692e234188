// Row sums with the columns as a sequential ("arbitrary") grid axis: a
// scratch accumulator persists across k, is zeroed at k == 0 and written at
// the last k. 100x300 does not divide into 16x128 blocks.
pallas.kernel @row_sum(%x: !pallas.ref<16x128xf32>, %o: !pallas.ref<16xf32>,
                       %acc: !pallas.ref<16xf32, vmem>) {
  %k = pallas.program_id 1 : i32
  %nk = pallas.num_programs 1 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %first = arith.cmpi eq, %k, %c0 : i32
  scf.if %first {
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    pallas.store %acc[...], %zero : !pallas.ref<16xf32, vmem>, tensor<16xf32>
  }
  %v = pallas.load %x[...] : !pallas.ref<16x128xf32> -> tensor<16x128xf32>
  %s = pallas.reduce sum %v [1] : tensor<16x128xf32> -> tensor<16xf32>
  %old = pallas.load %acc[...] : !pallas.ref<16xf32, vmem> -> tensor<16xf32>
  %new = arith.addf %old, %s : tensor<16xf32>
  pallas.store %acc[...], %new : !pallas.ref<16xf32, vmem>, tensor<16xf32>
  %klast = arith.subi %nk, %c1 : i32
  %last = arith.cmpi eq, %k, %klast : i32
  scf.if %last {
    %r = pallas.load %acc[...] : !pallas.ref<16xf32, vmem> -> tensor<16xf32>
    pallas.store %o[...], %r : !pallas.ref<16xf32>, tensor<16xf32>
  }
  pallas.return
}
