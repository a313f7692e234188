pallas.kernel @blocks(%a: !pallas.ref<4096x1000xf32, any>, %s: !pallas.ref<8xi32>) {
  %i = pallas.program_id 0 : i32
  %j = pallas.program_id 1 : i32
  %b0 = pallas.block %a[%i, %j] [1, 1024] squeezed [0] : !pallas.ref<4096x1000xf32, any> -> !pallas.ref<1024xf32, vmem>
  %b1 = pallas.block %a[%j, %i] [128, 128] : !pallas.ref<4096x1000xf32, any> -> !pallas.ref<128x128xf32, any>
  %b2 = pallas.block %s[%i] [1] squeezed [0] : !pallas.ref<8xi32> -> !pallas.ref<i32>
  pallas.return
}
