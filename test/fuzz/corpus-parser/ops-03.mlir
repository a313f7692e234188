pallas.kernel @loads(%r: !pallas.ref<4x8xf32>, %g: !pallas.ref<32xi32, gmem>,
                     %r3: !pallas.ref<4x8x16xf32>, %r0: !pallas.ref<f32>) {
  %i = pallas.program_id 0 : i32
  %ix = arith.index_cast %i : i32 to index
  %i64 = arith.extsi %i : i32 to i64

  %whole = pallas.load %r[...] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %rank0 = pallas.load %r0[...] : !pallas.ref<f32> -> f32

  %row = pallas.load %r[%i, :] : !pallas.ref<4x8xf32>, i32 -> tensor<8xf32>
  %col = pallas.load %r[:, %ix] : !pallas.ref<4x8xf32>, index -> tensor<4xf32>
  %elt = pallas.load %r[%i, %i64] : !pallas.ref<4x8xf32>, i32, i64 -> f32
  %cst = pallas.load %r[3, 7] : !pallas.ref<4x8xf32> -> f32

  %ds = pallas.load %r[2, ds(%i, 4)] : !pallas.ref<4x8xf32> -> tensor<4xf32>
  %dss = pallas.load %r[:, ds(%i, 4, 2)] : !pallas.ref<4x8xf32> -> tensor<4x4xf32>
  %dsc = pallas.load %r[ds(0, 2, 2), ds(1, 7, 1)] : !pallas.ref<4x8xf32> -> tensor<2x7xf32>
  %dse = pallas.load %r[ds(0, 4, 1), ds(0, 8)] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>
  %full = pallas.load %r[:, :] : !pallas.ref<4x8xf32> -> tensor<4x8xf32>

  %t = pallas.iota 0 : tensor<8xi32>
  %gather = pallas.load %g[%t] : !pallas.ref<32xi32, gmem>, tensor<8xi32> -> tensor<8xi32>
  %ta = pallas.iota 0 : tensor<4x1xi32>
  %tb = pallas.iota 1 : tensor<1x8xi32>
  %g2 = pallas.load %r[%ta, %tb] : !pallas.ref<4x8xf32>, tensor<4x1xi32>, tensor<1x8xi32> -> tensor<4x8xf32>
  %adj = pallas.load %r3[:, %t, 3] : !pallas.ref<4x8x16xf32>, tensor<8xi32> -> tensor<4x8xf32>
  %sep = pallas.load %r3[%t, ds(0, 4), %i] : !pallas.ref<4x8x16xf32>, tensor<8xi32>, i32 -> tensor<8x4xf32>

  %m = arith.constant dense<true> : tensor<8xi1>
  %masked = pallas.load %g[%t] mask %m : !pallas.ref<32xi32, gmem>, tensor<8xi32> -> tensor<8xi32>
  %o = arith.constant dense<-1> : tensor<8xi32>
  %other = pallas.load %g[ds(8, 8)] mask %m other %o : !pallas.ref<32xi32, gmem> -> tensor<8xi32>
  %ms = arith.constant true
  %smask = pallas.load %r[%i, 0] mask %ms : !pallas.ref<4x8xf32>, i32 -> f32

  %attr = pallas.load %r[1, :] {note = "x"} : !pallas.ref<4x8xf32> -> tensor<8xf32>
  pallas.return
}
