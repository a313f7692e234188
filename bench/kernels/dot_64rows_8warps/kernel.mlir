// A 64-row dot on eight warps (attention backward's dQ = dS K on 64-row
// query blocks): one m64 block for two consumer warpgroups, which split its
// 64 columns, 32 each, on wgmma m64n32 (the second warpgroup's B descriptor
// starting 64 bytes into the 128-byte swizzle atom's rows).
pallas.kernel @dot_64rows(%a: !pallas.ref<64x128xbf16>, %b: !pallas.ref<128x64xbf16>, %o: !pallas.ref<64x64xf32>) {
  %x = pallas.load %a[...] : !pallas.ref<64x128xbf16> -> tensor<64x128xbf16>
  %y = pallas.load %b[...] : !pallas.ref<128x64xbf16> -> tensor<128x64xbf16>
  %d = pallas.dot %x, %y : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
  pallas.store %o[...], %d : !pallas.ref<64x64xf32>, tensor<64x64xf32>
  pallas.return
}
