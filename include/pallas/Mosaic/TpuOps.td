//===- TpuOps.td - the subset of Mosaic's `tpu` dialect we emit -*- tablegen -*-===//
//
// The `tpu` dialect as jaxlib's Mosaic reads it: same dialect name, op names,
// attribute names and types, and assembly of the attributes and types (they
// travel as text inside the bytecode). Ops have the operands and attributes
// of their serialised form at stable_mosaic version 11 (see MosaicSerialize),
// so that serialising only renames them. Only what convert-pallas-to-mosaic
// emits is defined; full verification is left to jaxlib.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_MOSAIC_TPU_OPS
#define PALLAS_MOSAIC_TPU_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def TPU_Dialect : Dialect {
  let name = "tpu";
  let summary = "Mosaic TPU dialect (the subset pallasc emits)";
  let cppNamespace = "::mlir::pallas::tpu";
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

class TPU_Op<string mnemonic, list<Trait> traits = []> : Op<TPU_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums and attributes (`#tpu.name<value>`)
//===----------------------------------------------------------------------===//

def TPU_CoreType : I32EnumAttr<"CoreType", "core type", [
    I32EnumAttrCase<"tc", 0>, I32EnumAttrCase<"sc_scalar_subcore", 1>,
    I32EnumAttrCase<"sc_vector_subcore", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pallas::tpu";
}
def TPU_CoreTypeAttr : EnumAttr<TPU_Dialect, TPU_CoreType, "core_type"> {
  let assemblyFormat = "`<` $value `>`";
}

def TPU_DimensionSemantics : I32EnumAttr<"DimensionSemantics", "grid axis semantics", [
    I32EnumAttrCase<"parallel", 0>, I32EnumAttrCase<"arbitrary", 1>,
    I32EnumAttrCase<"core_parallel", 2>, I32EnumAttrCase<"subcore_parallel", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pallas::tpu";
}
def TPU_DimensionSemanticsAttr
    : EnumAttr<TPU_Dialect, TPU_DimensionSemantics, "dimension_semantics"> {
  let assemblyFormat = "`<` $value `>`";
}

def TPU_MemorySpace : I32EnumAttr<"MemorySpace", "memory space", [
    I32EnumAttrCase<"any", 0>, I32EnumAttrCase<"vmem", 1>,
    I32EnumAttrCase<"smem", 2>, I32EnumAttrCase<"hbm", 3>,
    I32EnumAttrCase<"semaphore_mem", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pallas::tpu";
}
def TPU_MemorySpaceAttr : EnumAttr<TPU_Dialect, TPU_MemorySpace, "memory_space"> {
  let assemblyFormat = "`<` $value `>`";
}

def TPU_PipelineMode : I32EnumAttr<"PipelineMode", "buffering of a window", [
    I32EnumAttrCase<"synchronous", 1>, I32EnumAttrCase<"double_buffered", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pallas::tpu";
}
def TPU_PipelineModeAttr : EnumAttr<TPU_Dialect, TPU_PipelineMode, "pipeline_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def TPU_DotDimensionNumbersAttr : AttrDef<TPU_Dialect, "DotDimensionNumbers"> {
  let mnemonic = "dot_dimension_numbers";
  let summary = "contracting, non-contracting, output and batch dims of a matmul";
  let description = [{
    `#tpu.dot_dimension_numbers<[lhs contracting], [rhs contracting],
    [lhs non-contracting], [rhs non-contracting], [output dim order],
    [lhs batch], [rhs batch]>`; the output dim order lists (operand, dim)
    pairs flattened, operand 0 for lhs and 1 for rhs.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$lhs_contracting_dims,
    ArrayRefParameter<"int64_t">:$rhs_contracting_dims,
    ArrayRefParameter<"int64_t">:$lhs_non_contracting_dims,
    ArrayRefParameter<"int64_t">:$rhs_non_contracting_dims,
    ArrayRefParameter<"int64_t">:$output_dim_order,
    ArrayRefParameter<"int64_t">:$lhs_batch_dims,
    ArrayRefParameter<"int64_t">:$rhs_batch_dims);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def TPU_SemaphoreType : TypeDef<TPU_Dialect, "Semaphore", [MemRefElementTypeInterface]> {
  let mnemonic = "semaphore";
  let summary = "a counting semaphore (element of a semaphore_mem memref)";
}
def TPU_DMASemaphoreType : TypeDef<TPU_Dialect, "DMASemaphore", [MemRefElementTypeInterface]> {
  let mnemonic = "dma_semaphore";
  let summary = "a semaphore signalled by DMA completion";
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def TPU_MatmulOp : TPU_Op<"matmul", [Pure]> {
  let summary = "acc + lhs x rhs on the MXU, as `dimension_numbers` say";
  let arguments = (ins AnyVectorOfNonZeroRank:$lhs, AnyVectorOfNonZeroRank:$rhs,
                       AnyVectorOfNonZeroRank:$acc,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_lhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_rhs,
                       OptionalAttr<TPU_DotDimensionNumbersAttr>:$dimension_numbers);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `,`
    type($acc) `->` type($result)
  }];
}

def TPU_VectorStoreOp : TPU_Op<"vector_store", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>]> {
  let summary = "stores a vector into a memref at the given indices";
  let arguments = (ins AnyVectorOfNonZeroRank:$valueToStore, AnyMemRef:$base,
                       Variadic<Index>:$indices, DenseI32ArrayAttr:$strides,
                       Optional<AnyVectorOfNonZeroRank>:$mask,
                       DefaultValuedAttr<BoolAttr, "false">:$add);
  let assemblyFormat = [{
    $base `[` $indices `]` `,` $valueToStore (`masked` $mask^)? attr-dict
    `:` type($base) `,` type($valueToStore) `,` type($mask)
  }];
}

def TPU_IotaOp : TPU_Op<"iota", [Pure]> {
  let summary = "indices along the given dimensions (lax.broadcasted_iota)";
  let arguments = (ins DenseI32ArrayAttr:$dimensions);
  let results = (outs VectorOfNonZeroRankOf<[AnyInteger, Index]>:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def TPU_RegionOp : TPU_Op<"region", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a scope for allocations (pl.run_scoped)";
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$region);
}

def TPU_YieldOp : TPU_Op<"yield", [Pure, ReturnLike, Terminator,
                                   HasParent<"RegionOp">]> {
  let summary = "ends a tpu.region, yielding its results";
  let arguments = (ins Variadic<AnyType>:$results);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

def TPU_SemaphoreMemRef : MemRefOf<[TPU_SemaphoreType, TPU_DMASemaphoreType]>;

def TPU_AllocaSemaphoreOp : TPU_Op<"sem_alloc"> {
  let summary = "allocates a semaphore for the enclosing tpu.region";
  let results = (outs TPU_SemaphoreMemRef:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TPU_SemaphoreSignalOp : TPU_Op<"sem_signal", [AttrSizedOperandSegments]> {
  let summary = "adds to a semaphore (pl.semaphore_signal)";
  let arguments = (ins TPU_SemaphoreMemRef:$semaphore, I32:$amount,
                       Optional<I32>:$device_id, Optional<I32>:$core_id);
  let assemblyFormat = [{
    $semaphore `,` $amount (`device_id` $device_id^)? (`core_id` $core_id^)?
    attr-dict `:` type($semaphore)
  }];
}

def TPU_SemaphoreWaitOp : TPU_Op<"sem_wait"> {
  let summary = "waits for a semaphore to reach a value and subtracts it";
  let arguments = (ins TPU_SemaphoreMemRef:$semaphore, I32:$amount);
  let assemblyFormat = "$semaphore `,` $amount attr-dict `:` type($semaphore)";
}

def TPU_SemaphoreReadOp : TPU_Op<"sem_read"> {
  let summary = "reads a semaphore's value";
  let arguments = (ins TPU_SemaphoreMemRef:$semaphore);
  let results = (outs I32:$result);
  let assemblyFormat = "$semaphore attr-dict `:` type($semaphore) `->` type($result)";
}

def TPU_EnqueueDMAOp : TPU_Op<"enqueue_dma", [AttrSizedOperandSegments]> {
  let summary = "starts a DMA from source to target";
  let arguments = (ins AnyMemRef:$source,
                       Optional<TPU_SemaphoreMemRef>:$source_semaphore,
                       AnyMemRef:$target,
                       Optional<TPU_SemaphoreMemRef>:$target_semaphore,
                       Optional<I32>:$device_id, Optional<I32>:$core_id,
                       DefaultValuedAttr<I32Attr, "0">:$priority,
                       DefaultValuedAttr<BoolAttr, "false">:$strict_ordering);
  let assemblyFormat = [{
    `source` `(` $source `:` type($source) `)`
    `target` `(` $target `:` type($target) `)`
    (`source_semaphore` `(` $source_semaphore^ `:` type($source_semaphore) `)`)?
    (`target_semaphore` `(` $target_semaphore^ `:` type($target_semaphore) `)`)?
    (`device_id` `(` $device_id^ `)`)? (`core_id` `(` $core_id^ `)`)?
    attr-dict
  }];
}

def TPU_WaitDMA2Op : TPU_Op<"wait_dma2", [AttrSizedOperandSegments]> {
  let summary = "waits for the DMA from src to dst signalling semaphore";
  let arguments = (ins TPU_SemaphoreMemRef:$semaphore, AnyMemRef:$src,
                       AnyMemRef:$dst, Optional<I32>:$device_id,
                       Optional<I32>:$core_id,
                       DefaultValuedAttr<BoolAttr, "false">:$strict_ordering);
  let assemblyFormat = [{
    `semaphore` `(` $semaphore `:` type($semaphore) `)`
    `src` `(` $src `:` type($src) `)` `dst` `(` $dst `:` type($dst) `)`
    (`device_id` `(` $device_id^ `)`)? (`core_id` `(` $core_id^ `)`)?
    attr-dict
  }];
}

def TPU_MemRefSliceOp : TPU_Op<"memref_slice", [Pure, AttrSizedOperandSegments]> {
  let summary = "a window of a memref at i32 base indices (ref.at[...])";
  let arguments = (ins AnyMemRef:$mem_ref, Variadic<I32>:$base_idx,
                       Variadic<I32>:$dynamic_sizes);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $mem_ref `[` $base_idx `]` (`<` $dynamic_sizes^ `>`)? attr-dict
    `:` type($mem_ref) `->` type($result)
  }];
}

def TPU_MemRefSqueezeOp : TPU_Op<"memref_squeeze", [Pure]> {
  let summary = "drops size-1 dims of a memref";
  let arguments = (ins AnyMemRef:$input);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

#endif // PALLAS_MOSAIC_TPU_OPS
