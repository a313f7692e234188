// o[i] = x[idx[i]] with indices that may be negative or past the end of x:
// those lanes read 0. Then a masked scatter writes o2[idx[i]] = i for the
// lanes whose index is even; out-of-range lanes are dropped.
pallas.kernel @gather_oob(%idx: !pallas.ref<16xi32>, %x: !pallas.ref<64xf32>,
                          %o: !pallas.ref<16xf32>, %o2: !pallas.ref<64xi32>) {
  %i = pallas.load %idx[...] : !pallas.ref<16xi32> -> tensor<16xi32>
  %v = pallas.load %x[%i] : !pallas.ref<64xf32>, tensor<16xi32> -> tensor<16xf32>
  pallas.store %o[...], %v : !pallas.ref<16xf32>, tensor<16xf32>
  %zero = arith.constant dense<0> : tensor<64xi32>
  pallas.store %o2[...], %zero : !pallas.ref<64xi32>, tensor<64xi32>
  %two = arith.constant dense<2> : tensor<16xi32>
  %rem = arith.remsi %i, %two : tensor<16xi32>
  %z16 = arith.constant dense<0> : tensor<16xi32>
  %even = arith.cmpi eq, %rem, %z16 : tensor<16xi32>
  %lane = pallas.iota 0 : tensor<16xi32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %val = arith.addi %lane, %one : tensor<16xi32>
  pallas.store %o2[%i], %val mask %even : !pallas.ref<64xi32>, tensor<16xi32>, tensor<16xi32>
  pallas.return
}
