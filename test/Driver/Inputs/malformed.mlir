pallas.kernel @add_one(%x: !pallas.ref<32xi32>, %o: !pallas.ref<32xi32>) {
  %v = pallas.load %x[...] : !pallas.ref<32xi32> ->
}
