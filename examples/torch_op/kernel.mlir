// SwiGLU's gate: silu(a) * b = a / (1 + exp(-a)) * b, on 8 x 256 blocks.
pallas.kernel @swiglu(%a: !pallas.ref<8x256xf32>, %b: !pallas.ref<8x256xf32>,
                      %o: !pallas.ref<8x256xf32>) {
  %x = pallas.load %a[...] : !pallas.ref<8x256xf32> -> tensor<8x256xf32>
  %y = pallas.load %b[...] : !pallas.ref<8x256xf32> -> tensor<8x256xf32>
  %nx = arith.negf %x : tensor<8x256xf32>
  %e = math.exp %nx : tensor<8x256xf32>
  %one = arith.constant dense<1.0> : tensor<8x256xf32>
  %d = arith.addf %one, %e : tensor<8x256xf32>
  %silu = arith.divf %x, %d : tensor<8x256xf32>
  %g = arith.mulf %silu, %y : tensor<8x256xf32>
  pallas.store %o[...], %g : !pallas.ref<8x256xf32>, tensor<8x256xf32>
  pallas.return
}
