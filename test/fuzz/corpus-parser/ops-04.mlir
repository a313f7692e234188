pallas.kernel @writes(%r: !pallas.ref<4x8xf32>, %g: !pallas.ref<32xi32, gmem>,
                      %h: !pallas.ref<16xi64>) {
  %i = pallas.program_id 0 : i32
  %t = pallas.iota 0 : tensor<8xi32>
  %m = arith.constant dense<true> : tensor<8xi1>
  %v = arith.constant dense<1.0> : tensor<8xf32>
  %vi = arith.constant dense<1> : tensor<8xi32>
  %f = arith.constant 2.0 : f32

  pallas.store %r[1, :], %v : !pallas.ref<4x8xf32>, tensor<8xf32>
  pallas.store %r[%i, 2], %f : !pallas.ref<4x8xf32>, i32, f32
  pallas.store %g[%t], %vi mask %m : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  pallas.store %g[ds(%i, 8, 3)], %vi {note = "x"} : !pallas.ref<32xi32, gmem>, tensor<8xi32>

  %old = pallas.swap %r[%i, :], %v mask %m : !pallas.ref<4x8xf32>, i32, tensor<8xf32>
  %olds = pallas.swap %r[0, 0], %f : !pallas.ref<4x8xf32>, f32

  %a0 = pallas.atomic_rmw add %g[%t], %vi mask %m : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  %a1 = pallas.atomic_rmw max %g[ds(0, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a2 = pallas.atomic_rmw min %g[ds(8, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a3 = pallas.atomic_rmw and %g[ds(16, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a4 = pallas.atomic_rmw or %g[ds(24, 8)], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>
  %a5 = pallas.atomic_rmw xor %g[%t], %vi : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  %a6 = pallas.atomic_rmw xchg %g[%t], %vi {note = "x"} : !pallas.ref<32xi32, gmem>, tensor<8xi32>, tensor<8xi32>
  %a7 = pallas.atomic_rmw add %r[%i, 5], %f : !pallas.ref<4x8xf32>, i32, f32

  %c = arith.constant 0 : i32
  %c64 = arith.constant 0 : i64
  %cas = pallas.atomic_cas %g[%i], %c, %i : !pallas.ref<32xi32, gmem>, i32, i32
  %cas64 = pallas.atomic_cas %h[3], %c64, %c64 : !pallas.ref<16xi64>, i64
  pallas.return
}
