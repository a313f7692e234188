// o = x * w + program id, vmapped over x (in_axes 0) but not over w (null).
pallas.kernel @scale(%x: !pallas.ref<8xf32>, %w: !pallas.ref<8xf32>, %o: !pallas.ref<8xf32>) {
  %i = pallas.program_id 0 : i32
  %f = arith.sitofp %i : i32 to f32
  %fb = pallas.broadcast %f : f32 -> tensor<8xf32>
  %a = pallas.load %x[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %b = pallas.load %w[...] : !pallas.ref<8xf32> -> tensor<8xf32>
  %p = arith.mulf %a, %b : tensor<8xf32>
  %r = arith.addf %p, %fb : tensor<8xf32>
  pallas.store %o[...], %r : !pallas.ref<8xf32>, tensor<8xf32>
  pallas.return
}
