// delta = rowsum(dO * O) over 128-row blocks of 128 bf16 columns, as JAX's
// attention backward preprocesses (the product summed in f32).
pallas.kernel @row_dot(%o: !pallas.ref<128x128xbf16>, %dout: !pallas.ref<128x128xbf16>,
                       %delta: !pallas.ref<128xf32>) {
  %a = pallas.load %o[...] : !pallas.ref<128x128xbf16> -> tensor<128x128xbf16>
  %b = pallas.load %dout[...] : !pallas.ref<128x128xbf16> -> tensor<128x128xbf16>
  %af = arith.extf %a : tensor<128x128xbf16> to tensor<128x128xf32>
  %bf = arith.extf %b : tensor<128x128xbf16> to tensor<128x128xf32>
  %p = arith.mulf %af, %bf : tensor<128x128xf32>
  %s = pallas.reduce sum %p [1] : tensor<128x128xf32> -> tensor<128xf32>
  pallas.store %delta[...], %s : !pallas.ref<128xf32>, tensor<128xf32>
  pallas.return
}
