// RUN: pallas-opt %s --pallas-fold-exp-scale | FileCheck %s

// Attention's softmax: the row max of x * c is max(x) * c, and the
// exponential one FMA against the row vector m * -log2(e), then exp2.
// CHECK-LABEL: tt.func @scaled_softmax
// CHECK-DAG: %[[K:.*]] = arith.constant dense<0.127517{{[0-9]*}}> : tensor<64x64xf32>
// CHECK-DAG: %[[NL:.*]] = arith.constant dense<-1.44269{{[0-9]*}}> : tensor<64xf32>
// CHECK-DAG: %[[C:.*]] = arith.constant dense<0.0883883{{[0-9]*}}> : tensor<64xf32>
// CHECK: %[[MX:.*]] = "tt.reduce"(%arg0)
// CHECK: %[[M:.*]] = arith.mulf %[[MX]], %[[C]] : tensor<64xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[M]], %[[NL]] : tensor<64xf32>
// CHECK: %[[E:.*]] = tt.expand_dims %[[S]] {axis = 1 : i32}
// CHECK: %[[B:.*]] = tt.broadcast %[[E]]
// CHECK: %[[F:.*]] = math.fma %arg0, %[[K]], %[[B]] : tensor<64x64xf32>
// CHECK: math.exp2 %[[F]] fastmath<arcp,afn> : tensor<64x64xf32>
// CHECK-NOT: math.exp
tt.func @scaled_softmax(%x: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64x64xf32>) {
  %c = arith.constant dense<0.0883883461> : tensor<64x64xf32>
  %s = arith.mulf %x, %c : tensor<64x64xf32>
  %m = "tt.reduce"(%s) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<64x64xf32>) -> tensor<64xf32>
  %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %s, %b : tensor<64x64xf32>
  %p = math.exp %d : tensor<64x64xf32>
  tt.return %m, %p : tensor<64xf32>, tensor<64x64xf32>
}

// A negative scale does not commute with max: the reduction stays on the
// scaled values; the exponential still folds.
// CHECK-LABEL: tt.func @negative_scale
// CHECK: %[[S:.*]] = arith.mulf %arg0, %{{.*}} : tensor<64x64xf32>
// CHECK: "tt.reduce"(%[[S]])
// CHECK: math.fma %arg0
// CHECK: math.exp2
tt.func @negative_scale(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = arith.constant dense<-2.0> : tensor<64x64xf32>
  %s = arith.mulf %x, %c : tensor<64x64xf32>
  %m = "tt.reduce"(%s) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<64x64xf32>) -> tensor<64xf32>
  %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %s, %b : tensor<64x64xf32>
  %p = math.exp %d : tensor<64x64xf32>
  tt.return %p : tensor<64x64xf32>
}

// A scale known at run time only (a splat scalar, fp8 attention's
// descales): its product with log2(e) once, beside the splat; the
// exponential one FMA with it. The row max becomes a uniform branch on the
// scale's sign: max(x) * s where s > 0, max(x * s) otherwise (exact for
// every s).
// CHECK-LABEL: tt.func @runtime_scale
// CHECK: %[[L2E:.*]] = arith.constant 1.44269{{[0-9]*}} : f32
// CHECK: %[[CL:.*]] = arith.mulf %arg1, %[[L2E]] : f32
// CHECK: %[[K:.*]] = tt.splat %[[CL]] : f32 -> tensor<64x64xf32>
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %arg1, %{{.*}} : f32
// CHECK: scf.if %[[POS]] -> (tensor<64xf32>) {
// CHECK:   %[[MX:.*]] = "tt.reduce"(%arg0)
// CHECK:   %[[ROW:.*]] = tt.splat %arg1 : f32 -> tensor<64xf32>
// CHECK:   %[[M:.*]] = arith.mulf %[[MX]], %[[ROW]] : tensor<64xf32>
// CHECK:   scf.yield %[[M]]
// CHECK: } else {
// CHECK:   %[[S:.*]] = arith.mulf %arg0, %{{.*}} : tensor<64x64xf32>
// CHECK:   "tt.reduce"(%[[S]])
// CHECK: }
// CHECK: math.fma %arg0, %[[K]], %{{.*}} : tensor<64x64xf32>
// CHECK: math.exp2
tt.func @runtime_scale(%x: tensor<64x64xf32>, %sc: f32) -> tensor<64x64xf32> {
  %c = tt.splat %sc : f32 -> tensor<64x64xf32>
  %s = arith.mulf %x, %c : tensor<64x64xf32>
  %m = "tt.reduce"(%s) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<64x64xf32>) -> tensor<64xf32>
  %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %s, %b : tensor<64x64xf32>
  %p = math.exp %d : tensor<64x64xf32>
  tt.return %p : tensor<64x64xf32>
}

// An exponential of anything else is left alone.
// CHECK-LABEL: tt.func @plain_exp
// CHECK: math.exp %arg0
tt.func @plain_exp(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %p = math.exp %x : tensor<64x64xf32>
  tt.return %p : tensor<64x64xf32>
}

// Causal attention's mask between the scale and the max: the scale moves
// behind the select (the masked value divided by it), then folds as above.
// CHECK-LABEL: tt.func @masked_softmax
// CHECK-DAG: %[[K:.*]] = arith.constant dense<0.127517{{[0-9]*}}> : tensor<64x64xf32>
// CHECK-DAG: %[[D:.*]] = arith.constant dense<-1.131{{[0-9]*}}E+31> : tensor<64x64xf32>
// CHECK: %[[SEL:.*]] = arith.select %arg1, %arg0, %[[D]]
// CHECK: "tt.reduce"(%[[SEL]])
// CHECK: math.fma %[[SEL]], %[[K]]
// CHECK: math.exp2
// CHECK-NOT: math.exp
tt.func @masked_softmax(%x: tensor<64x64xf32>, %keep: tensor<64x64xi1>) -> tensor<64x64xf32> {
  %c = arith.constant dense<0.0883883461> : tensor<64x64xf32>
  %ninf = arith.constant dense<-1.0e+30> : tensor<64x64xf32>
  %s = arith.mulf %x, %c : tensor<64x64xf32>
  %sm = arith.select %keep, %s, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
  %m = "tt.reduce"(%sm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<64x64xf32>) -> tensor<64xf32>
  %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %sm, %b : tensor<64x64xf32>
  %p = math.exp %d : tensor<64x64xf32>
  tt.return %p : tensor<64x64xf32>
}

// exp2 of scaled scores less a row vector (Pallas:MGPU's attention takes
// exp2 itself, log2(e) in its scale): one FMA against the negated row, the
// exp2's attributes kept.
// CHECK-LABEL: tt.func @exp2_row_shifted
// CHECK: %[[C:.*]] = arith.constant dense<0.180336{{[0-9]*}}> : tensor<64x128xf32>
// CHECK: %[[N:.*]] = arith.negf %arg1 : tensor<64xf32>
// CHECK: %[[E:.*]] = tt.expand_dims %[[N]]
// CHECK: %[[B:.*]] = tt.broadcast %[[E]]
// CHECK: %[[F:.*]] = math.fma %arg0, %[[C]], %[[B]] : tensor<64x128xf32>
// CHECK: math.exp2 %[[F]] fastmath<afn> : tensor<64x128xf32>
// CHECK-NOT: arith.subf
tt.func @exp2_row_shifted(%x: tensor<64x128xf32>, %m: tensor<64xf32>) -> tensor<64x128xf32> {
  %c = arith.constant dense<0.180336878> : tensor<64x128xf32>
  %s = arith.mulf %x, %c : tensor<64x128xf32>
  %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
  %d = arith.subf %s, %b : tensor<64x128xf32>
  %p = math.exp2 %d fastmath<afn> : tensor<64x128xf32>
  tt.return %p : tensor<64x128xf32>
}

// Unscaled scores stay as they are (no multiply to fold).
// CHECK-LABEL: tt.func @exp2_unscaled
// CHECK: arith.subf
// CHECK-NOT: math.fma
tt.func @exp2_unscaled(%x: tensor<64x128xf32>, %m: tensor<64xf32>) -> tensor<64x128xf32> {
  %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tt.broadcast %e : tensor<64x1xf32> -> tensor<64x128xf32>
  %d = arith.subf %x, %b : tensor<64x128xf32>
  %p = math.exp2 %d : tensor<64x128xf32>
  tt.return %p : tensor<64x128xf32>
}
