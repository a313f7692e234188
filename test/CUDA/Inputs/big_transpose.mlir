// A transpose of a 64x1024 f32 block goes through 256 KiB of shared memory;
// the reduction leaves 1024 outputs, so the block is not split. (8 warps keep
// its register share under the kernel-wide limit, program-limits.test.)
pallas.kernel @big_transpose(%x: !pallas.ref<64x1024xf32>, %o: !pallas.ref<1024xf32>) {
  %v = pallas.load %x[...] : !pallas.ref<64x1024xf32> -> tensor<64x1024xf32>
  %t = pallas.transpose %v [1, 0] : tensor<64x1024xf32> -> tensor<1024x64xf32>
  %s = pallas.reduce sum %t [1] : tensor<1024x64xf32> -> tensor<1024xf32>
  pallas.store %o[...], %s : !pallas.ref<1024xf32>, tensor<1024xf32>
  pallas.return
}
