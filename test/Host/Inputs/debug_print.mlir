// Each program prints its id, its block's first element (f32 and i32) and
// a literal percent sign; a format without placeholders gets the values
// after it.
pallas.kernel @debug_print(%x: !pallas.ref<8xf32>, %n: !pallas.ref<8xi32>,
                           %o: !pallas.ref<8xf32>) {
  %i = pallas.program_id 0 : i32
  %v = pallas.load %x[0] : !pallas.ref<8xf32> -> f32
  %k = pallas.load %n[0] : !pallas.ref<8xi32> -> i32
  pallas.debug_print "program {}: x[0] = {}, n[0] = {} (100%)", %i, %v, %k : i32, f32, i32
  pallas.debug_print "ids", %i, %i : i32, i32
  %b = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  pallas.store %o[...], %b : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}
