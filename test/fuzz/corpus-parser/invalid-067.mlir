pallas.kernel @k(%s: !pallas.semaphore) {
  %t = pallas.broadcast %s : !pallas.semaphore -> tensor<4xi32>
  pallas.return
}
