pallas.kernel @k(!pallas.ref<4xf32>)
