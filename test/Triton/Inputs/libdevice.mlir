// Math ops Triton does not lower itself: tanh on f32 and bf16 (through
// f32), atan2, log1p, and a bit count on i8 (through i32).
pallas.kernel @libdevice(%x: !pallas.ref<128xf32>, %h: !pallas.ref<128xbf16>, %n: !pallas.ref<128xi8>,
                         %o: !pallas.ref<128xf32>, %oh: !pallas.ref<128xbf16>, %on: !pallas.ref<128xi8>) {
  %v = pallas.load %x[...] : !pallas.ref<128xf32> -> tensor<128xf32>
  %t = math.tanh %v : tensor<128xf32>
  %a = math.atan2 %t, %v : tensor<128xf32>
  %l = math.log1p %t : tensor<128xf32>
  %s = arith.addf %a, %l : tensor<128xf32>
  pallas.store %o[...], %s : !pallas.ref<128xf32>, tensor<128xf32>
  %hv = pallas.load %h[...] : !pallas.ref<128xbf16> -> tensor<128xbf16>
  %ht = math.tanh %hv : tensor<128xbf16>
  pallas.store %oh[...], %ht : !pallas.ref<128xbf16>, tensor<128xbf16>
  %nv = pallas.load %n[...] : !pallas.ref<128xi8> -> tensor<128xi8>
  %nc = math.cttz %nv : tensor<128xi8>
  pallas.store %on[...], %nc : !pallas.ref<128xi8>, tensor<128xi8>
  pallas.return
}
