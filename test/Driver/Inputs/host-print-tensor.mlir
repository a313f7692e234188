pallas.kernel @add_one(%x: !pallas.ref<32xi32>, %o: !pallas.ref<32xi32>) {
  %v = pallas.load %x[...] : !pallas.ref<32xi32> -> tensor<32xi32>
  pallas.debug_print "x = {}", %v : tensor<32xi32>
  pallas.return
}
