// A K loop (steps of 128) with a dot and, in the same loop, a row reduction of x's block
// (which exchanges values through shared memory while the loop runs).
pallas.kernel @dot_rowsum(%x: !pallas.ref<128x512xbf16>, %y: !pallas.ref<512x128xbf16>,
                          %z: !pallas.ref<128x128xf32>, %s: !pallas.ref<128xf32>) {
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum0 = arith.constant dense<0.0> : tensor<128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %steps = arith.constant 4 : i32
  %acc, %sum = scf.for %k = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %sum_i = %sum0)
      -> (tensor<128x128xf32>, tensor<128xf32>) : i32 {
    %off = arith.muli %k, %c128 : i32
    %a = pallas.load %x[:, ds(%off, 128)] : !pallas.ref<128x512xbf16> -> tensor<128x128xbf16>
    %b = pallas.load %y[ds(%off, 128), :] : !pallas.ref<512x128xbf16> -> tensor<128x128xbf16>
    %p = pallas.dot %a, %b acc %acc_i : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %af = arith.extf %a : tensor<128x128xbf16> to tensor<128x128xf32>
    %r = pallas.reduce sum %af [1] : tensor<128x128xf32> -> tensor<128xf32>
    %t = arith.addf %sum_i, %r : tensor<128xf32>
    scf.yield %p, %t : tensor<128x128xf32>, tensor<128xf32>
  }
  pallas.store %z[...], %acc : !pallas.ref<128x128xf32>, tensor<128x128xf32>
  pallas.store %s[...], %sum : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}
