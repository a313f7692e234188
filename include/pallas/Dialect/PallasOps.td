//===- PallasOps.td - operations of the pallas dialect -----*- tablegen -*-===//
//
// One op per Pallas primitive. Ops that index a ref
// (`load`, `store`, `swap`, atomics, `ref_slice`, copies) share one indexer
// syntax, parsed and printed by src/Dialect/Indexers.cpp and stored in the
// `indexers` property (see IndexerList in Indexers.h).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_OPS
#define PALLAS_OPS

include "pallas/Dialect/PallasDialect.td"
include "pallas/Dialect/PallasTypes.td"
include "pallas/Dialect/PallasEnums.td"
include "pallas/Dialect/PallasAttrs.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def Pallas_KernelOp : Pallas_Op<"kernel", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "a Pallas kernel: one program of the grid";
  let description = [{
    `pallas.kernel @name(%refs...) { ... pallas.return }`. Arguments are in
    Pallas's order: scalar-prefetch refs, inputs, outputs, scratch.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    bool isDeclaration() { return false; }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_ReturnOp : Pallas_Op<"return", [Pure, Terminator,
                                           HasParent<"KernelOp">]> {
  let summary = "ends a kernel";
  let assemblyFormat = "attr-dict";
}

def Pallas_RunScopedOp : Pallas_Op<"run_scoped", [
    SingleBlockImplicitTerminator<"YieldOp">, AutomaticAllocationScope]> {
  let summary = "runs a region with scoped scratch refs (pl.run_scoped)";
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_YieldOp : Pallas_Op<"yield", [Pure, Terminator, ReturnLike,
                                         HasParent<"RunScopedOp">]> {
  let summary = "yields values out of a run_scoped region";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

def Pallas_ProgramIdOp : Pallas_Op<"program_id", [Pure]> {
  let summary = "this program's index along a grid axis (pl.program_id)";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Pallas_NumProgramsOp : Pallas_Op<"num_programs", [Pure]> {
  let summary = "the grid size along an axis (pl.num_programs)";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Memory access
//===----------------------------------------------------------------------===//

def Pallas_LoadOp : Pallas_Op<"load", [AttrSizedOperandSegments]> {
  let summary = "reads (part of) a ref, optionally masked (ref[...], pl.load)";
  let arguments = (ins Pallas_AnyRef:$ref, Variadic<AnyType>:$indices,
                       DenseI64ArrayAttr:$indexers,
                       Optional<AnyType>:$mask, Optional<AnyType>:$other);
  let results = (outs AnyType:$result);
  let builders = [
    // `ref[...]`: the whole ref, a tensor (a 0-d ref: its scalar).
    OpBuilder<(ins "::mlir::Value":$ref)>];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_StoreOp : Pallas_Op<"store", [AttrSizedOperandSegments]> {
  let summary = "writes (part of) a ref, optionally masked (ref[...] = v)";
  let arguments = (ins Pallas_AnyRef:$ref, Variadic<AnyType>:$indices,
                       DenseI64ArrayAttr:$indexers, AnyType:$value,
                       Optional<AnyType>:$mask);
  let builders = [
    // `ref[...] = value`: the whole ref.
    OpBuilder<(ins "::mlir::Value":$ref, "::mlir::Value":$value)>];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_SwapOp : Pallas_Op<"swap", [AttrSizedOperandSegments]> {
  let summary = "stores a value and returns the old one (pl.swap)";
  let arguments = (ins Pallas_AnyRef:$ref, Variadic<AnyType>:$indices,
                       DenseI64ArrayAttr:$indexers, AnyType:$value,
                       Optional<AnyType>:$mask);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_AtomicRMWOp : Pallas_Op<"atomic_rmw", [AttrSizedOperandSegments]> {
  let summary = "atomic read-modify-write; returns the old value";
  let arguments = (ins Pallas_AtomicKind:$kind, Pallas_AnyRef:$ref,
                       Variadic<AnyType>:$indices,
                       DenseI64ArrayAttr:$indexers, AnyType:$value,
                       Optional<AnyType>:$mask);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_AtomicCASOp : Pallas_Op<"atomic_cas"> {
  let summary = "atomic compare-and-swap; returns the old value";
  let arguments = (ins Pallas_AnyRef:$ref, Variadic<AnyType>:$indices,
                       DenseI64ArrayAttr:$indexers, AnyType:$cmp,
                       AnyType:$value);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_RefSliceOp : Pallas_Op<"ref_slice", [Pure]> {
  let summary = "a view of part of a ref, no load (ref.at[...])";
  let arguments = (ins Pallas_AnyRef:$ref, Variadic<AnyType>:$indices,
                       DenseI64ArrayAttr:$indexers);
  let results = (outs Pallas_AnyRef:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_AsyncCopyOp : Pallas_Op<"async_copy", [AttrSizedOperandSegments]> {
  let summary = "starts an asynchronous copy (make_async_copy(...).start())";
  let arguments = (ins Pallas_AnyRef:$src, Variadic<AnyType>:$src_indices,
                       DenseI64ArrayAttr:$src_indexers,
                       Pallas_AnyRef:$dst, Variadic<AnyType>:$dst_indices,
                       DenseI64ArrayAttr:$dst_indexers,
                       Pallas_DMASemaphoreType:$sem);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pallas_DMAWaitOp : Pallas_Op<"dma_wait", [AttrSizedOperandSegments]> {
  let summary = "waits for an asynchronous copy (make_async_copy(...).wait())";
  let arguments = (ins Pallas_AnyRef:$src, Variadic<AnyType>:$src_indices,
                       DenseI64ArrayAttr:$src_indexers,
                       Pallas_AnyRef:$dst, Variadic<AnyType>:$dst_indices,
                       DenseI64ArrayAttr:$dst_indexers,
                       Pallas_DMASemaphoreType:$sem);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor construction and reshaping
//===----------------------------------------------------------------------===//

def Pallas_IotaOp : Pallas_Op<"iota", [Pure]> {
  let summary = "indices along one dimension (lax.broadcasted_iota)";
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs RankedTensorOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Pallas_BroadcastOp : Pallas_Op<"broadcast", [Pure]> {
  let summary = "broadcast a scalar or tensor (lax.broadcast_in_dim)";
  let description = [{
    Without `dims`, a scalar fills the result and a tensor is aligned to the
    trailing result dims (NumPy). With `dims`, input dim i becomes result
    dim dims[i]; each input dim is 1 or equal to its result dim.
  }];
  let arguments = (ins AnyType:$input, OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`dims` $dims^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The result dim each input dim maps to: `dims`, or the trailing
    /// result dims when `dims` is absent. Empty for a scalar input.
    ::llvm::SmallVector<int64_t> getInputToResultDims();
  }];
}

def Pallas_ReshapeOp : Pallas_Op<"reshape", [Pure]> {
  let summary = "same elements, another shape (lax.reshape)";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Pallas_TransposeOp : Pallas_Op<"transpose", [Pure]> {
  let summary = "permutes dimensions (lax.transpose)";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Pallas_ConcatenateOp : Pallas_Op<"concatenate", [Pure]> {
  let summary = "joins tensors along a dimension (lax.concatenate)";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

def Pallas_ReduceOp : Pallas_Op<"reduce", [Pure]> {
  let summary = "reduces over axes (jnp.sum/prod/max/min, all/any)";
  let arguments = (ins Pallas_ReductionKind:$kind, AnyRankedTensor:$input,
                       DenseI64ArrayAttr:$axes);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $input $axes attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

class Pallas_ArgReduceOp<string mnemonic, string what> : Pallas_Op<mnemonic, [Pure]> {
  let summary = "index of the " # what # " along an axis (jnp.arg" # what # ")";
  let arguments = (ins AnyRankedTensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs AnyTypeOf<[I32, TensorOf<[I32]>]>:$result);
  let assemblyFormat = [{
    $input `[` $axis `]` attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}
def Pallas_ArgMaxOp : Pallas_ArgReduceOp<"argmax", "max">;
def Pallas_ArgMinOp : Pallas_ArgReduceOp<"argmin", "min">;

def Pallas_CumsumOp : Pallas_Op<"cumsum", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "inclusive prefix sum along an axis (jnp.cumsum)";
  let arguments = (ins AnyRankedTensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis,
                       UnitAttr:$reverse);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input `[` $axis `]` attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiply
//===----------------------------------------------------------------------===//

def Pallas_DotOp : Pallas_Op<"dot", [Pure]> {
  let summary = "matrix product, optionally accumulating (jnp.dot, pl.dot)";
  let description = [{
    2-D `[M,K] x [K,N]`, or 3-D with a leading batch dim. Floats accumulate
    in f32, integers in i32. `precision` is "default", "high" or "highest".
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       Optional<AnyRankedTensor>:$acc,
                       OptionalAttr<StrAttr>:$precision,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`acc` $acc^)? attr-dict `:` type($lhs) `,` type($rhs)
    (`,` type($acc)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Hints
//===----------------------------------------------------------------------===//

class Pallas_HintOp<string mnemonic, string what>
    : Pallas_Op<mnemonic, [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = what;
  let arguments = (ins AnyType:$input, ConfinedAttr<I64Attr, [IntPositive]>:$value);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input `,` $value attr-dict `:` type($input)";
  let hasVerifier = 1;
}
def Pallas_MultipleOfOp : Pallas_HintOp<"multiple_of",
    "asserts every element is a multiple of N (pl.multiple_of)">;
def Pallas_MaxContiguousOp : Pallas_HintOp<"max_contiguous",
    "asserts runs of N consecutive values (tl.max_contiguous)">;

//===----------------------------------------------------------------------===//
// Synchronisation and debugging
//===----------------------------------------------------------------------===//

def Pallas_SemaphoreSignalOp : Pallas_Op<"semaphore_signal"> {
  let summary = "adds to a semaphore (pl.semaphore_signal)";
  let arguments = (ins Pallas_AnySemaphore:$sem, I32:$value);
  let assemblyFormat = "$sem `,` $value attr-dict `:` type($sem)";
}

def Pallas_SemaphoreWaitOp : Pallas_Op<"semaphore_wait"> {
  let summary = "waits until a semaphore holds a value, then subtracts it";
  let arguments = (ins Pallas_AnySemaphore:$sem, I32:$value);
  let assemblyFormat = "$sem `,` $value attr-dict `:` type($sem)";
}

def Pallas_SemaphoreReadOp : Pallas_Op<"semaphore_read"> {
  let summary = "reads a semaphore's value (pl.semaphore_read)";
  let arguments = (ins Pallas_AnySemaphore:$sem);
  let results = (outs I32:$result);
  let assemblyFormat = "$sem attr-dict `:` type($sem)";
}

def Pallas_BarrierOp : Pallas_Op<"barrier"> {
  let summary = "a barrier across the program's threads (debug_barrier)";
  let assemblyFormat = "attr-dict";
}

def Pallas_DebugPrintOp : Pallas_Op<"debug_print"> {
  let summary = "prints values from inside a kernel (pl.debug_print)";
  let arguments = (ins StrAttr:$format, Variadic<AnyType>:$args);
  let assemblyFormat = "$format (`,` $args^ `:` type($args))? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Expanded form (after pallas-expand-grid)
//===----------------------------------------------------------------------===//

def Pallas_BlockOp : Pallas_Op<"block", [Pure]> {
  let summary = "the block of a whole array at given block indices";
  let description = [{
    `pallas.block %A[%i, %j] [1, 1024] squeezed [0] : !pallas.ref<4096x1000xf32> -> !pallas.ref<1024xf32>`
    is the view of `%A` starting at element `(i * 1, j * 1024)` with the
    block's shape, squeezed dims dropped. A block may overhang the array:
    reads of elements outside it give 0 (or `other`), writes are dropped.
  }];
  let arguments = (ins Pallas_AnyRef:$ref, Variadic<I32>:$indices,
                       DenseI64ArrayAttr:$block_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$squeezed);
  let results = (outs Pallas_AnyRef:$result);
  let assemblyFormat = [{
    $ref `[` $indices `]` $block_shape (`squeezed` $squeezed^)? attr-dict
    `:` qualified(type($ref)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // PALLAS_OPS
