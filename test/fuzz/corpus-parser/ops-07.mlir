pallas.kernel @reductions(%r: !pallas.ref<4x8xf32>, %q: !pallas.ref<4x8xi32>,
                          %p: !pallas.ref<8xi1>) {
  %x = pallas.load %r[...] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %y = pallas.load %q[...] : !pallas.ref<4x8xi32> -> tensor<4x8xi32>
  %z = pallas.load %p[...] : !pallas.ref<8xi1> -> tensor<8xi1>

  %r0 = pallas.reduce sum %x [1] : tensor<4x8xf32> -> tensor<4xf32>
  %r1 = pallas.reduce prod %x [0] : tensor<4x8xf32> -> tensor<8xf32>
  %r2 = pallas.reduce max %x [0, 1] : tensor<4x8xf32> -> f32
  %r3 = pallas.reduce min %y [1, 0] : tensor<4x8xi32> -> i32
  %r4 = pallas.reduce and %z [0] : tensor<8xi1> -> i1
  %r5 = pallas.reduce or %z [0] : tensor<8xi1> -> i1
  %r6 = pallas.reduce xor %y [1] : tensor<4x8xi32> -> tensor<4xi32>

  %am = pallas.argmax %x[1] : tensor<4x8xf32> -> tensor<4xi32>
  %an = pallas.argmin %y [0] : tensor<4x8xi32> -> tensor<8xi32>
  %am1 = pallas.argmax %z[0] : tensor<8xi1> -> i32

  %cs = pallas.cumsum %x[1] : tensor<4x8xf32>
  %csr = pallas.cumsum %y [0] {reverse} : tensor<4x8xi32>
  pallas.return
}
