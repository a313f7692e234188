// Atomic histogram: every lane adds 1 to its bin; lanes with out-of-range
// bins are masked off by the bounds check.
pallas.kernel @hist(%bins: !pallas.ref<64xi32>, %h: !pallas.ref<16xi32>) {
  %b = pallas.load %bins[...] : !pallas.ref<64xi32> -> tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %old = pallas.atomic_rmw add %h[%b], %one : !pallas.ref<16xi32>, tensor<64xi32>, tensor<64xi32>
  pallas.return
}
