//===- TileOps.td - tile IR: the subset of Triton's `tt` dialect -*- tablegen -*-===//
//
// Triton IR as Triton 3.x parses it: same dialect name, op names, attribute
// names and types, and assembly formats, so that the module pallasc builds
// and prints is read by `triton.compile` as its own. Only what
// convert-pallas-to-tile emits is defined; verification is left to Triton.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_TILE_OPS
#define PALLAS_TILE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let summary = "Triton IR (the subset pallasc emits)";
  let cppNamespace = "::mlir::pallas::tt";
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

class TT_Op<string mnemonic, list<Trait> traits = []> : Op<TT_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def TT_PtrType : TypeDef<TT_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "a pointer in global memory (address space 1)";
  let parameters = (ins "::mlir::Type":$pointeeType, "int":$addressSpace);
  let hasCustomAssemblyFormat = 1;
  let skipDefaultBuilders = 1;
  let builders = [TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                                      CArg<"int", "1">:$addressSpace), [{
    return $_get(pointeeType.getContext(), pointeeType, addressSpace);
  }]>];
}

def TT_Ptr : Type<CPred<"::llvm::isa<::mlir::pallas::tt::PointerType>($_self)">, "ptr">;
def TT_PtrTensor : RankedTensorOf<[TT_Ptr]>;
def TT_PtrLike : AnyTypeOf<[TT_Ptr, TT_PtrTensor]>;
def TT_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;

//===----------------------------------------------------------------------===//
// Enums (plain I32EnumAttrs: keywords in formats, integers in dictionaries)
//===----------------------------------------------------------------------===//

def TT_ProgramDim : I32EnumAttr<"ProgramIDDim", "", [
    I32EnumAttrCase<"X", 0, "x">, I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_CacheModifierAttr : I32EnumAttr<"CacheModifier", "", [
    I32EnumAttrCase<"NONE", 1, "none">, I32EnumAttrCase<"CA", 2, "ca">,
    I32EnumAttrCase<"CG", 3, "cg">, I32EnumAttrCase<"WB", 4, "wb">,
    I32EnumAttrCase<"CS", 5, "cs">, I32EnumAttrCase<"WT", 6, "wt">,
    I32EnumAttrCase<"CV", 7, "cv">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_EvictionPolicyAttr : I32EnumAttr<"EvictionPolicy", "", [
    I32EnumAttrCase<"NORMAL", 1, "evict_normal">,
    I32EnumAttrCase<"EVICT_FIRST", 2, "evict_first">,
    I32EnumAttrCase<"EVICT_LAST", 3, "evict_last">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_AtomicRMWAttr : I32EnumAttr<"RMWOp", "", [
    I32EnumAttrCase<"AND", 1, "and">, I32EnumAttrCase<"OR", 2, "or">,
    I32EnumAttrCase<"XOR", 3, "xor">, I32EnumAttrCase<"ADD", 4, "add">,
    I32EnumAttrCase<"FADD", 5, "fadd">, I32EnumAttrCase<"MAX", 6, "max">,
    I32EnumAttrCase<"MIN", 7, "min">, I32EnumAttrCase<"UMAX", 8, "umax">,
    I32EnumAttrCase<"UMIN", 9, "umin">, I32EnumAttrCase<"XCHG", 10, "exch">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_MemSemanticAttr : I32EnumAttr<"MemSemantic", "", [
    I32EnumAttrCase<"RELAXED", 1, "relaxed">, I32EnumAttrCase<"ACQUIRE", 2, "acquire">,
    I32EnumAttrCase<"RELEASE", 3, "release">,
    I32EnumAttrCase<"ACQUIRE_RELEASE", 4, "acq_rel">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_MemSyncScopeAttr : I32EnumAttr<"MemSyncScope", "", [
    I32EnumAttrCase<"GPU", 1, "gpu">, I32EnumAttrCase<"CTA", 2, "cta">,
    I32EnumAttrCase<"SYSTEM", 3, "sys">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_InputPrecisionAttr : I32EnumAttr<"InputPrecision", "", [
    I32EnumAttrCase<"TF32", 0, "tf32">, I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
    I32EnumAttrCase<"IEEE", 2, "ieee">, I32EnumAttrCase<"BF16x3", 3, "bf16x3">,
    I32EnumAttrCase<"BF16x6", 4, "bf16x6">]> {
  let cppNamespace = "::mlir::pallas::tt";
}
def TT_RoundingModeAttr : I32EnumAttr<"RoundingMode", "", [
    I32EnumAttrCase<"RTZ", 0, "rtz">, I32EnumAttrCase<"RTNE", 1, "rtne">]> {
  let cppNamespace = "::mlir::pallas::tt";
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def TT_FuncOp : TT_Op<"func", [AutomaticAllocationScope, FunctionOpInterface,
                               IsolatedFromAbove]> {
  let summary = "a Triton kernel or helper";
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    bool isDeclaration() { return false; }
  }];
  let hasCustomAssemblyFormat = 1;
}

def TT_ReturnOp : TT_Op<"return", [Pure, HasParent<"FuncOp">, ReturnLike, Terminator]> {
  let arguments = (ins Variadic<AnyType>:$srcs);
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
}

def TT_GetProgramIdOp : TT_Op<"get_program_id", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins TT_ProgramDim:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_MakeRangeOp : TT_Op<"make_range", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TT_SplatOp : TT_Op<"splat", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins AnyType:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_BroadcastOp : TT_Op<"broadcast", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_ExpandDimsOp : TT_Op<"expand_dims", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins AnyRankedTensor:$src, I32Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_ReshapeOp : TT_Op<"reshape", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins AnyRankedTensor:$src, UnitAttr:$allow_reorder,
                       UnitAttr:$efficient_layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?
    attr-dict `:` type($src) `->` type($result)
  }];
}

def TT_TransOp : TT_Op<"trans", [Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let arguments = (ins AnyRankedTensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_AddPtrOp : TT_Op<"addptr", [Pure,
    TypesMatchWith<"result type matches ptr type", "result", "ptr", "$_self">]> {
  let arguments = (ins TT_PtrLike:$ptr, AnyTypeOf<[AnySignlessInteger, RankedTensorOf<[AnySignlessInteger]>]>:$offset);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
}

def TT_LoadOp : TT_Op<"load", [AttrSizedOperandSegments,
    TypesMatchWith<"result matches ptr type", "ptr", "result",
                   "::mlir::pallas::tt::getPointeeType($_self)">,
    TypesMatchWith<"mask type matches ptr type", "ptr", "mask",
                   "::mlir::pallas::tt::getI1SameShape(::mlir::pallas::tt::getPointeeType($_self))",
                   "($_op.getOperands().size() <= 1) || std::equal_to<>()">,
    TypesMatchWith<"other matches ptr type", "ptr", "other",
                   "::mlir::pallas::tt::getPointeeType($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let arguments = (ins TT_PtrLike:$ptr, Optional<TT_BoolLike>:$mask, Optional<AnyType>:$other,
      DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
      DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::pallas::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::pallas::tt::EvictionPolicy::NORMAL">:$evict,
      DefaultValuedAttr<BoolAttr, "false">:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
}

def TT_StoreOp : TT_Op<"store", [
    TypesMatchWith<"value type matches ptr type", "ptr", "value",
                   "::mlir::pallas::tt::getPointeeType($_self)">,
    TypesMatchWith<"mask type matches ptr type", "ptr", "mask",
                   "::mlir::pallas::tt::getI1SameShape(::mlir::pallas::tt::getPointeeType($_self))",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let arguments = (ins TT_PtrLike:$ptr, AnyType:$value, Optional<TT_BoolLike>:$mask,
      DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
      DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::pallas::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::pallas::tt::EvictionPolicy::NORMAL">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
}

def TT_DotOp : TT_Op<"dot", [Pure,
    TypesMatchWith<"result's type matches accumulator's type", "d", "c", "$_self">]> {
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, AnyRankedTensor:$c,
      DefaultValuedAttr<TT_InputPrecisionAttr, "::mlir::pallas::tt::InputPrecision::IEEE">:$inputPrecision,
      DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a`,` $b`,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
}

// A call of a device library function per element (libdevice's `__nv_*`,
// which Triton's NVIDIA backend links), as Triton's own libdevice wrappers
// and JAX's Pallas-Triton lowering emit it.
// A reinterpretation of the bits (Triton lowers this, not arith.bitcast).
def TT_BitcastOp : TT_Op<"bitcast", [Pure, SameOperandsAndResultShape]> {
  let arguments = (ins AnyType:$src);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

// Conversions to and from f8 as Triton writes them (the triton target only;
// the other targets keep arith.truncf / arith.extf).
def TT_FpToFpOp : TT_Op<"fp_to_fp", [Pure, SameOperandsAndResultShape]> {
  let arguments = (ins AnyType:$src, OptionalAttr<TT_RoundingModeAttr>:$rounding);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)";
}

def TT_ExternElementwiseOp : TT_Op<"extern_elementwise", [Pure]> {
  let arguments = (ins Variadic<AnyType>:$srcs, StrAttr:$libname, StrAttr:$libpath,
                       StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs AnyType:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
}

def TT_JoinOp : TT_Op<"join", [NoMemoryEffect, AllTypesMatch<["lhs", "rhs"]>]> {
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

// Reduce and scan have no custom form in Triton: they print generically.
def TT_ReduceOp : TT_Op<"reduce", [Pure, SingleBlock]> {
  let arguments = (ins Variadic<AnyRankedTensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<AnyType>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
}
def TT_ReduceReturnOp : TT_Op<"reduce.return", [HasParent<"ReduceOp">, Pure,
                                                Terminator, ReturnLike]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}
def TT_ScanOp : TT_Op<"scan", [Pure, SingleBlock]> {
  let arguments = (ins Variadic<AnyRankedTensor>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
}
def TT_ScanReturnOp : TT_Op<"scan.return", [HasParent<"ScanOp">, Pure,
                                            Terminator, ReturnLike]> {
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_AtomicRMWOp : TT_Op<"atomic_rmw"> {
  let arguments = (ins TT_AtomicRMWAttr:$atomic_rmw_op, TT_PtrLike:$ptr, AnyType:$val,
                       Optional<TT_BoolLike>:$mask, TT_MemSemanticAttr:$sem,
                       TT_MemSyncScopeAttr:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)?  attr-dict `:`
    functional-type(operands, $result)
  }];
}

def TT_AtomicCASOp : TT_Op<"atomic_cas"> {
  let arguments = (ins TT_PtrLike:$ptr, AnyType:$cmp, AnyType:$val,
                       TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:`
    functional-type(operands, $result)
  }];
}

#endif // PALLAS_TILE_OPS
