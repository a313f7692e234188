pallas.kernel @tensors(%r: !pallas.ref<4x8xf32>) {
  %iota = pallas.iota 1 : tensor<4x8xi32>
  %iotai = pallas.iota 0 : tensor<16xindex>
  %iota64 = pallas.iota 0 : tensor<2xi64>

  %s = arith.constant 1.5 : f32
  %v = pallas.load %r[0, :] : !pallas.ref<4x8xf32> -> tensor<8xf32>
  %c = pallas.load %r[:, 0] : !pallas.ref<4x8xf32> -> tensor<4xf32>

  %b0 = pallas.broadcast %s : f32 -> tensor<4x8xf32>
  %b1 = pallas.broadcast %v : tensor<8xf32> -> tensor<4x8xf32>
  %b2 = pallas.broadcast %c dims [0] : tensor<4xf32> -> tensor<4x8xf32>
  %b3 = pallas.broadcast %v dims [1] : tensor<8xf32> -> tensor<2x8x3xf32>
  %b4 = pallas.broadcast %s dims [] : f32 -> tensor<2xf32>
  %b5 = pallas.broadcast %b3 dims [0, 1, 3] : tensor<2x8x3xf32> -> tensor<2x8x5x3xf32>
  %one = pallas.reshape %v : tensor<8xf32> -> tensor<1x8xf32>
  %b6 = pallas.broadcast %one : tensor<1x8xf32> -> tensor<4x8xf32>

  %rs = pallas.reshape %iota : tensor<4x8xi32> -> tensor<2x16xi32>
  %t = pallas.transpose %b3 [2, 0, 1] : tensor<2x8x3xf32> -> tensor<3x2x8xf32>
  %cc = pallas.concatenate %t, %t {dim = 1 : i64} : tensor<3x2x8xf32>, tensor<3x2x8xf32> -> tensor<3x4x8xf32>
  %c1 = pallas.concatenate %v {dim = 0 : i64} : tensor<8xf32> -> tensor<8xf32>
  %c3 = pallas.concatenate %c, %v, %c {dim = 0 : i64} : tensor<4xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<16xf32>
  pallas.return
}
