// pallas-expand-f8-conversions: arith.extf from f8E4M3FN/f8E5M2 and
// arith.truncf to them become integer and f32 arithmetic on the bits
// (ml_dtypes' semantics: round to nearest even, subnormals kept, f8E4M3FN
// overflowing to NaN, f8E5M2 to infinity), f8 values staying f8 at the
// edges through arith.bitcast to and from i8. Pinned here: the expansion
// of each direction and format, the widths around f32, and what is left
// alone. (test/Host/f8-conversions.test checks the values bit for bit.)
// RUN: pallas-opt %s --pallas-expand-f8-conversions | FileCheck %s

// f8E4M3FN -> f32: sign to bit 31; normal: exponent rebiased by 127 - 7,
// mantissa shifted up by 23 - 3; subnormal: mantissa * 2^-9 in f32; NaN
// (S.1111.111, the only one): f32's all-ones exponent.
// CHECK-LABEL: func.func @extf_e4m3
// CHECK-DAG: %[[NAN:.*]] = arith.constant 2139095040 : i32
// CHECK-DAG: %[[LOW7:.*]] = arith.constant 127 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[SUB:.*]] = arith.constant 0.001953125 : f32
// CHECK-DAG: %[[C20:.*]] = arith.constant 20 : i32
// CHECK-DAG: %[[C23:.*]] = arith.constant 23 : i32
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 120 : i32
// CHECK-DAG: %[[EMASK:.*]] = arith.constant 15 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i32
// CHECK: %[[B8:.*]] = arith.bitcast %arg0 : f8E4M3FN to i8
// CHECK-NEXT: %[[B:.*]] = arith.extui %[[B8]] : i8 to i32
// CHECK-NEXT: %[[S0:.*]] = arith.shrui %[[B]], %[[C7]]
// CHECK-NEXT: %[[SIGN:.*]] = arith.shli %[[S0]], %[[C31]]
// CHECK-NEXT: %[[E0:.*]] = arith.shrui %[[B]], %[[C3]]
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[E0]], %[[EMASK]]
// CHECK-NEXT: %[[M:.*]] = arith.andi %[[B]], %[[C7]]
// CHECK-NEXT: %[[E1:.*]] = arith.addi %[[E]], %[[BIAS]]
// CHECK-NEXT: %[[E2:.*]] = arith.shli %[[E1]], %[[C23]]
// CHECK-NEXT: %[[M1:.*]] = arith.shli %[[M]], %[[C20]]
// CHECK-NEXT: %[[NORMAL:.*]] = arith.ori %[[E2]], %[[M1]]
// CHECK-NEXT: %[[MF:.*]] = arith.uitofp %[[M]] : i32 to f32
// CHECK-NEXT: %[[SF:.*]] = arith.mulf %[[MF]], %[[SUB]]
// CHECK-NEXT: %[[SUBN:.*]] = arith.bitcast %[[SF]] : f32 to i32
// CHECK-NEXT: %[[ISSUB:.*]] = arith.cmpi eq, %[[E]], %[[ZERO]]
// CHECK-NEXT: %[[MAG:.*]] = arith.select %[[ISSUB]], %[[SUBN]], %[[NORMAL]]
// CHECK-NEXT: %[[LOW:.*]] = arith.andi %[[B]], %[[LOW7]]
// CHECK-NEXT: %[[ISNAN:.*]] = arith.cmpi eq, %[[LOW]], %[[LOW7]]
// CHECK-NEXT: %[[M2:.*]] = arith.shli %[[M]], %[[C20]]
// CHECK-NEXT: %[[NANB:.*]] = arith.ori %[[M2]], %[[NAN]]
// CHECK-NEXT: %[[MAG2:.*]] = arith.select %[[ISNAN]], %[[NANB]], %[[MAG]]
// CHECK-NEXT: %[[BITS:.*]] = arith.ori %[[SIGN]], %[[MAG2]]
// CHECK-NEXT: %[[F:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT: return %[[F]]
func.func @extf_e4m3(%a: f8E4M3FN) -> f32 {
  %r = arith.extf %a : f8E4M3FN to f32
  return %r : f32
}

// f8E5M2 -> f32: two mantissa bits, five of exponent (rebiased by
// 127 - 15), subnormals * 2^-16; an all-ones exponent is infinity or NaN.
// CHECK-LABEL: func.func @extf_e5m2
// CHECK-DAG: %[[SUB:.*]] = arith.constant 1.52587891E-5 : f32
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C31:.*]] = arith.constant 31 : i32
// CHECK: %[[B:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: %[[E0:.*]] = arith.shrui %[[B]], %[[C2]]
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[E0]], %[[C31]]
// CHECK-NEXT: %[[M:.*]] = arith.andi %[[B]], %[[C3]]
// CHECK-NEXT: arith.addi %[[E]], %[[BIAS]]
// CHECK: arith.mulf %{{.*}}, %[[SUB]]
// CHECK: %[[SPECIAL:.*]] = arith.cmpi eq, %[[E]], %[[C31]]
// CHECK: arith.select %[[SPECIAL]]
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: return
func.func @extf_e5m2(%a: f8E5M2) -> f32 {
  %r = arith.extf %a : f8E5M2 to f32
  return %r : f32
}

// f32 -> f8E5M2 (a tensor: constants splat): round the f32 bits at the
// 2nd mantissa bit (ties to even: + 2^20 - 1 + the kept last bit), rebias
// (112 << 2); below the smallest normal (2^-14), count units of 2^-16
// rounded by f32's own addition to 2^23; above 0x7B (57344) infinity
// (0x7C); NaN stays NaN (0x7E).
// CHECK-LABEL: func.func @truncf_e5m2
// CHECK-DAG: %[[QNAN:.*]] = arith.constant dense<126> : tensor<4xi32>
// CHECK-DAG: %[[INF32:.*]] = arith.constant dense<2139095040> : tensor<4xi32>
// CHECK-DAG: %[[INF:.*]] = arith.constant dense<124> : tensor<4xi32>
// CHECK-DAG: %[[MAXF:.*]] = arith.constant dense<123> : tensor<4xi32>
// CHECK-DAG: %[[MINN:.*]] = arith.constant dense<947912704> : tensor<4xi32>
// CHECK-DAG: %[[MAGICI:.*]] = arith.constant dense<1258291200> : tensor<4xi32>
// CHECK-DAG: %[[MAGIC:.*]] = arith.constant dense<0x4B000000> : tensor<4xf32>
// CHECK-DAG: %[[UNITS:.*]] = arith.constant dense<6.553600e+04> : tensor<4xf32>
// CHECK-DAG: %[[REBIAS:.*]] = arith.constant dense<448> : tensor<4xi32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<1048575> : tensor<4xi32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : tensor<4xi32>
// CHECK-DAG: %[[DROP:.*]] = arith.constant dense<21> : tensor<4xi32>
// CHECK-DAG: %[[ABSM:.*]] = arith.constant dense<2147483647> : tensor<4xi32>
// CHECK-DAG: %[[C7:.*]] = arith.constant dense<7> : tensor<4xi32>
// CHECK-DAG: %[[C31:.*]] = arith.constant dense<31> : tensor<4xi32>
// CHECK: %[[B:.*]] = arith.bitcast %arg0 : tensor<4xf32> to tensor<4xi32>
// CHECK-NEXT: %[[S0:.*]] = arith.shrui %[[B]], %[[C31]]
// CHECK-NEXT: %[[SIGN:.*]] = arith.shli %[[S0]], %[[C7]]
// CHECK-NEXT: %[[ABS:.*]] = arith.andi %[[B]], %[[ABSM]]
// CHECK-NEXT: %[[K0:.*]] = arith.shrui %[[ABS]], %[[DROP]]
// CHECK-NEXT: %[[ODD:.*]] = arith.andi %[[K0]], %[[ONE]]
// CHECK-NEXT: %[[INC:.*]] = arith.addi %[[ODD]], %[[HALF]]
// CHECK-NEXT: %[[RND:.*]] = arith.addi %[[ABS]], %[[INC]]
// CHECK-NEXT: %[[K:.*]] = arith.shrui %[[RND]], %[[DROP]]
// CHECK-NEXT: %[[NORMAL:.*]] = arith.subi %[[K]], %[[REBIAS]]
// CHECK-NEXT: %[[ABSF:.*]] = arith.bitcast %[[ABS]] : tensor<4xi32> to tensor<4xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[ABSF]], %[[UNITS]]
// CHECK-NEXT: %[[UM:.*]] = arith.addf %[[U]], %[[MAGIC]]
// CHECK-NEXT: %[[UB:.*]] = arith.bitcast %[[UM]] : tensor<4xf32> to tensor<4xi32>
// CHECK-NEXT: %[[SUBN:.*]] = arith.subi %[[UB]], %[[MAGICI]]
// CHECK-NEXT: %[[ISSUB:.*]] = arith.cmpi slt, %[[ABS]], %[[MINN]]
// CHECK-NEXT: %[[CODE:.*]] = arith.select %[[ISSUB]], %[[SUBN]], %[[NORMAL]]
// CHECK-NEXT: %[[OVER:.*]] = arith.cmpi sgt, %[[CODE]], %[[MAXF]]
// CHECK-NEXT: %[[CODE2:.*]] = arith.select %[[OVER]], %[[INF]], %[[CODE]]
// CHECK-NEXT: %[[ISNAN:.*]] = arith.cmpi sgt, %[[ABS]], %[[INF32]]
// CHECK-NEXT: %[[CODE3:.*]] = arith.select %[[ISNAN]], %[[QNAN]], %[[CODE2]]
// CHECK-NEXT: %[[BITS:.*]] = arith.ori %[[SIGN]], %[[CODE3]]
// CHECK-NEXT: %[[BYTE:.*]] = arith.trunci %[[BITS]] : tensor<4xi32> to tensor<4xi8>
// CHECK-NEXT: %[[R:.*]] = arith.bitcast %[[BYTE]] : tensor<4xi8> to tensor<4xf8E5M2>
// CHECK-NEXT: return %[[R]]
func.func @truncf_e5m2(%a: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %r = arith.truncf %a : tensor<4xf32> to tensor<4xf8E5M2>
  return %r : tensor<4xf8E5M2>
}

// f32 -> f8E4M3FN: rounded at the 3rd mantissa bit, rebiased (120 << 3),
// subnormals in units of 2^-9 below 2^-6; above 0x7E (448) NaN (0x7F), as
// is NaN: the format has no infinity.
// CHECK-LABEL: func.func @truncf_e4m3
// CHECK-DAG: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK-DAG: %[[MAXF:.*]] = arith.constant 126 : i32
// CHECK-DAG: %[[MINN:.*]] = arith.constant 1015021568 : i32
// CHECK-DAG: %[[UNITS:.*]] = arith.constant 5.120000e+02 : f32
// CHECK-DAG: %[[REBIAS:.*]] = arith.constant 960 : i32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 524287 : i32
// CHECK-DAG: %[[DROP:.*]] = arith.constant 20 : i32
// CHECK: %[[ABS:.*]] = arith.andi
// CHECK-NEXT: arith.shrui %[[ABS]], %[[DROP]]
// CHECK: arith.addi %{{.*}}, %[[HALF]]
// CHECK: arith.subi %{{.*}}, %[[REBIAS]]
// CHECK: arith.mulf %{{.*}}, %[[UNITS]]
// CHECK: arith.cmpi slt, %[[ABS]], %[[MINN]]
// CHECK: %[[OVER:.*]] = arith.cmpi sgt, %{{.*}}, %[[MAXF]]
// CHECK-NEXT: %[[CODE:.*]] = arith.select %[[OVER]], %[[NAN]], %{{.*}}
// CHECK-NEXT: %[[ISNAN:.*]] = arith.cmpi sgt, %[[ABS]], %{{.*}}
// CHECK-NEXT: arith.select %[[ISNAN]], %[[NAN]], %[[CODE]]
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK-NEXT: return
func.func @truncf_e4m3(%a: f32) -> f8E4M3FN {
  %r = arith.truncf %a : f32 to f8E4M3FN
  return %r : f8E4M3FN
}

// Other widths go through f32, exactly: f8 -> f16 truncates the f32 value,
// f8 -> f64 extends it; f16 -> f8 extends to f32 first, f64 -> f8
// truncates to f32 first (f32 keeps more than twice f8's bits, so that
// double rounding is exact).
// CHECK-LABEL: func.func @widths
// CHECK: %[[E16:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: %[[R16:.*]] = arith.truncf %[[E16]] : f32 to f16
// CHECK: %[[E64:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: %[[R64:.*]] = arith.extf %[[E64]] : f32 to f64
// CHECK-NEXT: %[[H:.*]] = arith.extf %arg1 : f16 to f32
// CHECK-NEXT: arith.bitcast %[[H]] : f32 to i32
// CHECK: %[[T8:.*]] = arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK-NEXT: %[[D:.*]] = arith.truncf %arg2 : f64 to f32
// CHECK-NEXT: arith.bitcast %[[D]] : f32 to i32
// CHECK: %[[U8:.*]] = arith.bitcast %{{.*}} : i8 to f8E5M2
// CHECK-NEXT: return %[[R16]], %[[R64]], %[[T8]], %[[U8]]
func.func @widths(%a: f8E4M3FN, %h: f16, %d: f64) -> (f16, f64, f8E4M3FN, f8E5M2) {
  %r = arith.extf %a : f8E4M3FN to f16
  %s = arith.extf %a : f8E4M3FN to f64
  %t = arith.truncf %h : f16 to f8E4M3FN
  %u = arith.truncf %d : f64 to f8E5M2
  return %r, %s, %t, %u : f16, f64, f8E4M3FN, f8E5M2
}

// Left alone: a rounding mode other than to-nearest-even, and conversions
// without an f8 side.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT: %[[R:.*]] = arith.truncf %arg0 toward_zero : f32 to f8E4M3FN
// CHECK-NEXT: %[[S:.*]] = arith.extf %arg1 : f16 to f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %arg0 : f32 to f16
// CHECK-NEXT: return %[[R]], %[[S]], %[[T]]
func.func @left_alone(%a: f32, %h: f16) -> (f8E4M3FN, f32, f16) {
  %r = arith.truncf %a toward_zero : f32 to f8E4M3FN
  %s = arith.extf %h : f16 to f32
  %t = arith.truncf %a : f32 to f16
  return %r, %s, %t : f8E4M3FN, f32, f16
}
