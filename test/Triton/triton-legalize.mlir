// pallas-triton-legalize: math ops Triton's backend does not lower become
// tt.extern_elementwise calls of libdevice's __nv_* functions (f32: the
// `f` variant; f16/bf16 operands extended to f32 and the result truncated;
// bit counts of i8/i16 run on i32, i64's on the `ll` variant); f16/bf16
// divf and remf run in f32; negf becomes a subtraction from -0.0 and
// arith.bitcast tt.bitcast. Ops Triton lowers itself stay.
// RUN: pallas-opt %s --pallas-triton-legalize | FileCheck %s

// CHECK-LABEL: tt.func @libdevice_floats
// CHECK-NEXT: %[[T32:.*]] = tt.extern_elementwise %arg0 {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (f32) -> f32
// CHECK-NEXT: %[[T64:.*]] = tt.extern_elementwise %arg1 {{{.*}}symbol = "__nv_tanh"} : (f64) -> f64
// CHECK-NEXT: %[[HW:.*]] = arith.extf %arg2 : f16 to f32
// CHECK-NEXT: %[[L:.*]] = tt.extern_elementwise %[[HW]] {{{.*}}symbol = "__nv_log1pf"} : (f32) -> f32
// CHECK-NEXT: %[[L16:.*]] = arith.truncf %[[L]] : f32 to f16
// CHECK-NEXT: %[[Y:.*]] = arith.extf %arg3 : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[X:.*]] = arith.extf %arg3 : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[A:.*]] = tt.extern_elementwise %[[Y]], %[[X]] {{{.*}}symbol = "__nv_atan2f"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[A16:.*]] = arith.truncf %[[A]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: %[[P:.*]] = tt.extern_elementwise %arg0, %arg4 {{{.*}}symbol = "__nv_powf"} : (f32, f32) -> f32
// CHECK-NEXT: %[[R:.*]] = tt.extern_elementwise %arg0 {{{.*}}symbol = "__nv_rintf"} : (f32) -> f32
// CHECK-NEXT: %[[RA:.*]] = tt.extern_elementwise %arg0 {{{.*}}symbol = "__nv_roundf"} : (f32) -> f32
// CHECK-NEXT: tt.return %[[T32]], %[[T64]], %[[L16]], %[[A16]], %[[P]], %[[R]], %[[RA]]
tt.func @libdevice_floats(%x: f32, %d: f64, %h: f16, %t: tensor<8xbf16>, %p: f32)
    -> (f32, f64, f16, tensor<8xbf16>, f32, f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.tanh %d : f64
  %2 = math.log1p %h : f16
  %3 = math.atan2 %t, %t : tensor<8xbf16>
  %4 = math.powf %x, %p : f32
  %5 = math.roundeven %x : f32
  %6 = math.round %x : f32
  tt.return %0, %1, %2, %3, %4, %5, %6 : f32, f64, f16, tensor<8xbf16>, f32, f32, f32
}

// ctlz: clz (i32), clzll (i64, its i32 count extended), an i8 zero-extended
// and its count less the 24 bits above it; cttz: ffs - 1, or the width for
// 0 (ffs 0); ctpop of i16: popc of the zero-extended value.
// CHECK-LABEL: tt.func @bit_counts
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : i32
// CHECK: %[[CLZ:.*]] = tt.extern_elementwise %arg0 {{{.*}}symbol = "__nv_clz"} : (i32) -> i32
// CHECK-NEXT: %[[CLZLL:.*]] = tt.extern_elementwise %arg1 {{{.*}}symbol = "__nv_clzll"} : (i64) -> i32
// CHECK-NEXT: %[[CLZ64:.*]] = arith.extui %[[CLZLL]] : i32 to i64
// CHECK-NEXT: %[[B32:.*]] = arith.extui %arg2 : i8 to i32
// CHECK-NEXT: %[[CLZB:.*]] = tt.extern_elementwise %[[B32]] {{{.*}}symbol = "__nv_clz"} : (i32) -> i32
// CHECK-NEXT: %[[CLZB2:.*]] = arith.subi %[[CLZB]], %[[C24]] : i32
// CHECK-NEXT: %[[CLZ8:.*]] = arith.trunci %[[CLZB2]] : i32 to i8
// CHECK-NEXT: %[[FFS:.*]] = tt.extern_elementwise %arg0 {{{.*}}symbol = "__nv_ffs"} : (i32) -> i32
// CHECK-NEXT: %[[NONE:.*]] = arith.cmpi eq, %[[FFS]], %[[C0]] : i32
// CHECK-NEXT: %[[LOW:.*]] = arith.subi %[[FFS]], %[[C1]] : i32
// CHECK-NEXT: %[[CTZ:.*]] = arith.select %[[NONE]], %[[C32]], %[[LOW]] : i32
// CHECK-NEXT: %[[S32:.*]] = arith.extui %arg3 : tensor<4xi16> to tensor<4xi32>
// CHECK-NEXT: %[[POPC:.*]] = tt.extern_elementwise %[[S32]] {{{.*}}symbol = "__nv_popc"} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT: %[[POP:.*]] = arith.trunci %[[POPC]] : tensor<4xi32> to tensor<4xi16>
// CHECK-NEXT: tt.return %[[CLZ]], %[[CLZ64]], %[[CLZ8]], %[[CTZ]], %[[POP]]
tt.func @bit_counts(%i: i32, %l: i64, %b: i8, %s: tensor<4xi16>) -> (i32, i64, i8, i32, tensor<4xi16>) {
  %0 = math.ctlz %i : i32
  %1 = math.ctlz %l : i64
  %2 = math.ctlz %b : i8
  %3 = math.cttz %i : i32
  %4 = math.ctpop %s : tensor<4xi16>
  tt.return %0, %1, %2, %3, %4 : i32, i64, i8, i32, tensor<4xi16>
}

// 16-bit divf and remf in f32 (f32's stays); negf as -0.0 - x (scalar and
// splat); arith.bitcast as tt.bitcast.
// CHECK-LABEL: tt.func @arith
// CHECK-DAG: %[[NZT:.*]] = arith.constant dense<-0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[H0:.*]] = arith.extf %arg0 : f16 to f32
// CHECK-NEXT: %[[H1:.*]] = arith.extf %arg0 : f16 to f32
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[H0]], %[[H1]] : f32
// CHECK-NEXT: %[[D16:.*]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT: %[[T0:.*]] = arith.extf %arg1 : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[T1:.*]] = arith.extf %arg1 : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[M:.*]] = arith.remf %[[T0]], %[[T1]] : tensor<8xf32>
// CHECK-NEXT: %[[M16:.*]] = arith.truncf %[[M]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: %[[D32:.*]] = arith.divf %arg2, %arg2 : f32
// CHECK-NEXT: %[[N:.*]] = arith.subf %[[NZ]], %arg2 : f32
// CHECK-NEXT: %[[NT:.*]] = arith.subf %[[NZT]], %arg3 : tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = tt.bitcast %arg2 : f32 -> i32
// CHECK-NEXT: tt.return %[[D16]], %[[M16]], %[[D32]], %[[N]], %[[NT]], %[[B]]
tt.func @arith(%h: f16, %t: tensor<8xbf16>, %x: f32, %v: tensor<4xf32>)
    -> (f16, tensor<8xbf16>, f32, f32, tensor<4xf32>, i32) {
  %0 = arith.divf %h, %h : f16
  %1 = arith.remf %t, %t : tensor<8xbf16>
  %2 = arith.divf %x, %x : f32
  %3 = arith.negf %x : f32
  %4 = arith.negf %v : tensor<4xf32>
  %5 = arith.bitcast %x : f32 to i32
  tt.return %0, %1, %2, %3, %4, %5 : f16, tensor<8xbf16>, f32, f32, tensor<4xf32>, i32
}

// What Triton lowers itself stays, f16 included.
// CHECK-LABEL: tt.func @left_alone
// CHECK-NEXT: math.exp %arg0 : f32
// CHECK-NEXT: math.sqrt %arg0 : f32
// CHECK-NEXT: math.erf %arg0 : f32
// CHECK-NEXT: math.exp %arg1 : f16
// CHECK-NEXT: math.fma %arg0, %arg0, %arg0 : f32
// CHECK-NEXT: tt.return
tt.func @left_alone(%x: f32, %h: f16) -> (f32, f32, f32, f16, f32) {
  %0 = math.exp %x : f32
  %1 = math.sqrt %x : f32
  %2 = math.erf %x : f32
  %3 = math.exp %h : f16
  %4 = math.fma %x, %x, %x : f32
  tt.return %0, %1, %2, %3, %4 : f32, f32, f32, f16, f32
}
