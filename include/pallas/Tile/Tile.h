//===- Tile.h - tile IR: the subset of Triton's `tt` dialect ---*- C++ -*-===//
//
// The tile IR both GPU targets stand on: one program per CTA, tensors of
// whole blocks, pointers and masks. convert-pallas-to-tile produces it; the
// triton target prints it as Triton IR, the CUDA targets lower it further
// (targets/cuda). Its ops are Triton's `tt` ops, so the printed module is
// Triton's own.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TILE_TILE_H
#define PALLAS_TILE_TILE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pallas/Tile/TileDialect.h.inc"
#include "pallas/Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Tile/TileTypes.h.inc"

namespace mlir::pallas::tt {
/// On a tt.get_program_id: how many programs its axis has (the id is below
/// that), where the CUDA targets know it.
constexpr llvm::StringLiteral kProgramsAttrName = "tt.num_programs";
/// On a tt.func pointer argument: the shape of the array it points to,
/// where the CUDA targets know it. A symbolic size is `-1 - p`, p the
/// function argument (i32) that holds it.
constexpr llvm::StringLiteral kShapeAttrName = "tt.shape";
/// On a tt.load or tt.store (CUDA targets): its mask only keeps the access
/// inside its array (no user mask; a load reads zero where masked), as a
/// TMA copy's bounds do.
constexpr llvm::StringLiteral kBoundsMaskAttrName = "tt.bounds_mask";
/// On a tt.load (CUDA targets): it is a `pallas.async_copy` into a scoped
/// buffer, whose `pallas.dma_wait` comes before any use of the value.
constexpr llvm::StringLiteral kAsyncCopyAttrName = "tt.async_copy";
/// `tensor<SxT>` for `tensor<Sx!tt.ptr<T>>`, `T` for `!tt.ptr<T>`.
Type getPointeeType(Type type);
/// `tensor<Sxi1>` for a tensor of shape S, `i1` for a scalar.
Type getI1SameShape(Type type);
/// `!tt.ptr<T>` or `tensor<Sx!tt.ptr<T>>` for `T` or `tensor<SxT>`.
Type getPointerTypeSameShape(Type type);
} // namespace mlir::pallas::tt

#define GET_OP_CLASSES
#include "pallas/Tile/TileOps.h.inc"

#endif
