// pallas-host-legalize: what the host's LLVM lowering would leave to
// runtime libraries beyond libc and libm is rewritten. Every memref.copy
// becomes a linalg.copy (loops, where finalize-memref-to-llvm would call
// MLIR's memrefCopy for a non-contiguous side), and math.fma on f16/bf16
// runs in f32 between arith.extf and arith.truncf (no compiler-rt
// conversions). Other ops, and fma on f32, stay as they are.
// RUN: pallas-opt %s --pallas-host-legalize | FileCheck %s

// A strided side (a concatenate along an inner dim) and a contiguous one.
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x16xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK: %[[V:.*]] = memref.subview %[[B]][0, 8] [4, 8] [1, 1]
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[V]] : memref<4x8xf32, strided<[16, 1], offset: 8>>)
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @copies(%a: memref<4x8xf32>, %b: memref<4x16xf32>, %c: memref<4x8xf32>) {
  %v = memref.subview %b[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %a, %v : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %a, %c : memref<4x8xf32> to memref<4x8xf32>
  return
}

// f16 and bf16 fma, scalar and tensor: the operands extended, the fma in
// f32, its result truncated once.
// CHECK-LABEL: func.func @fma16
// CHECK-SAME: (%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[Z:.*]]: f16, %[[T:.*]]: tensor<8xbf16>)
// CHECK-NEXT: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[ZW:.*]] = arith.extf %[[Z]] : f16 to f32
// CHECK-NEXT: %[[F:.*]] = math.fma %[[XW]], %[[YW]], %[[ZW]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK-NEXT: %[[TW:.*]] = arith.extf %[[T]] : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[TW2:.*]] = arith.extf %[[T]] : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[TW3:.*]] = arith.extf %[[T]] : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: %[[G:.*]] = math.fma %[[TW]], %[[TW2]], %[[TW3]] : tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = arith.truncf %[[G]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: return %[[R]], %[[S]]
func.func @fma16(%x: f16, %y: f16, %z: f16, %t: tensor<8xbf16>) -> (f16, tensor<8xbf16>) {
  %r = math.fma %x, %y, %z : f16
  %s = math.fma %t, %t, %t : tensor<8xbf16>
  return %r, %s : f16, tensor<8xbf16>
}

// Left alone: fma on f32, and other f16 math (libm's, after
// math-extend-to-supported-types).
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT: %[[F:.*]] = math.fma %arg0, %arg0, %arg0 : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %arg1 : f16
// CHECK-NEXT: return %[[F]], %[[E]]
func.func @left_alone(%x: f32, %h: f16) -> (f32, f16) {
  %f = math.fma %x, %x, %x : f32
  %e = math.exp %h : f16
  return %f, %e : f32, f16
}
