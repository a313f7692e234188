// Scratch and scoped buffers picked by index (the triton and CUDA targets
// keep them in registers): each step k stores chunk k of x, times k + 1, into
// slot k of a 4x8x128 buffer and x[k, 0, 0] into element k of a 4-element
// scratch, then the program sums buf[3 - k] * s[k]; q[k] is m[k, k mod 2]
// picked from a 4x2 scratch (two indexed dims: a scalar) plus both elements
// of row k of a 4x2 scratch n written element by element (n[k, k mod 2] =
// x[k, 0, 0], the other element left as zeroed first).
pallas.kernel @scratch_slots(%x: !pallas.ref<4x8x128xf32>, %o: !pallas.ref<8x128xf32>,
                             %q: !pallas.ref<4xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<8x128xf32>
  %zq = arith.constant dense<0.0> : tensor<4xf32>
  %r:2 = pallas.run_scoped (%buf: !pallas.ref<4x8x128xf32, vmem>, %s: !pallas.ref<4xf32, smem>,
                            %m: !pallas.ref<4x2xf32, vmem>, %n: !pallas.ref<4x2xf32, vmem>)
                            -> (tensor<8x128xf32>, tensor<4xf32>) {
    %zn = arith.constant dense<0.0> : tensor<4x2xf32>
    pallas.store %n[...], %zn : !pallas.ref<4x2xf32, vmem>, tensor<4x2xf32>
    scf.for %k = %c0 to %c4 step %c1 : i32 {
      %v = pallas.load %x[%k, :, :] : !pallas.ref<4x8x128xf32>, i32 -> tensor<8x128xf32>
      %k1 = arith.addi %k, %c1 : i32
      %kf = arith.sitofp %k1 : i32 to f32
      %kt = pallas.broadcast %kf : f32 -> tensor<8x128xf32>
      %w = arith.mulf %v, %kt : tensor<8x128xf32>
      pallas.store %buf[%k, :, :], %w : !pallas.ref<4x8x128xf32, vmem>, i32, tensor<8x128xf32>
      %e = pallas.load %x[%k, 0, 0] : !pallas.ref<4x8x128xf32>, i32 -> f32
      pallas.store %s[%k], %e : !pallas.ref<4xf32, smem>, i32, f32
      %row = pallas.load %x[%k, 1, ds(0, 2)] : !pallas.ref<4x8x128xf32>, i32 -> tensor<2xf32>
      pallas.store %m[%k, :], %row : !pallas.ref<4x2xf32, vmem>, i32, tensor<2xf32>
      %kc = arith.remsi %k, %c2 : i32
      pallas.store %n[%k, %kc], %e : !pallas.ref<4x2xf32, vmem>, i32, i32, f32
    }
    %acc:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero, %b = %zq) -> (tensor<8x128xf32>, tensor<4xf32>) : i32 {
      %j = arith.subi %c3, %k : i32
      %slot = pallas.load %buf[%j, :, :] : !pallas.ref<4x8x128xf32, vmem>, i32 -> tensor<8x128xf32>
      %sk = pallas.load %s[%k] : !pallas.ref<4xf32, smem>, i32 -> f32
      %st = pallas.broadcast %sk : f32 -> tensor<8x128xf32>
      %t = arith.mulf %slot, %st : tensor<8x128xf32>
      %a2 = arith.addf %a, %t : tensor<8x128xf32>
      %col = arith.remsi %k, %c2 : i32
      %mk0 = pallas.load %m[%k, %col] : !pallas.ref<4x2xf32, vmem>, i32, i32 -> f32
      %nrow = pallas.load %n[%k, :] : !pallas.ref<4x2xf32, vmem>, i32 -> tensor<2xf32>
      %nsum = pallas.reduce sum %nrow [0] : tensor<2xf32> -> f32
      %mk = arith.addf %mk0, %nsum : f32
      %ks = pallas.broadcast %k : i32 -> tensor<4xi32>
      %io = pallas.iota 0 : tensor<4xi32>
      %here = arith.cmpi eq, %io, %ks : tensor<4xi32>
      %mt = pallas.broadcast %mk : f32 -> tensor<4xf32>
      %b2 = arith.select %here, %mt, %b : tensor<4xi1>, tensor<4xf32>
      scf.yield %a2, %b2 : tensor<8x128xf32>, tensor<4xf32>
    }
    pallas.yield %acc#0, %acc#1 : tensor<8x128xf32>, tensor<4xf32>
  }
  pallas.store %o[...], %r#0 : !pallas.ref<8x128xf32>, tensor<8x128xf32>
  pallas.store %q[...], %r#1 : !pallas.ref<4xf32>, tensor<4xf32>
  pallas.return
}
