//===- PallasEnums.td - enums of the pallas dialect --------*- tablegen -*-===//
#ifndef PALLAS_ENUMS
#define PALLAS_ENUMS

include "mlir/IR/EnumAttr.td"

// Where a ref lives. `none` is the default: the backend picks (a block in
// VMEM on TPU, global memory on GPU).
def Pallas_MemorySpace : I32EnumAttr<"MemorySpace", "memory space of a ref", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"any", 1>,
    I32EnumAttrCase<"vmem", 2>, I32EnumAttrCase<"smem", 3>,
    I32EnumAttrCase<"gmem", 4>, I32EnumAttrCase<"regs", 5>]> {
  let cppNamespace = "::mlir::pallas";
}

def Pallas_ReductionKind : I32EnumAttr<"ReductionKind", "reduction kind", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"and_", 4, "and">, I32EnumAttrCase<"or_", 5, "or">,
    I32EnumAttrCase<"xor_", 6, "xor">]> {
  let cppNamespace = "::mlir::pallas";
}

def Pallas_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write kind", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"and_", 3, "and">,
    I32EnumAttrCase<"or_", 4, "or">, I32EnumAttrCase<"xor_", 5, "xor">,
    I32EnumAttrCase<"xchg", 6>]> {
  let cppNamespace = "::mlir::pallas";
}

// How a grid axis may run (the spec's `dimension_semantics`).
def Pallas_DimensionSemantics : I32EnumAttr<"DimensionSemantics",
    "whether the programs along a grid axis are independent", [
    I32EnumAttrCase<"parallel", 0>, I32EnumAttrCase<"arbitrary", 1>]> {
  let cppNamespace = "::mlir::pallas";
}

// What a kernel argument is, in Pallas's argument order.
def Pallas_ArgRole : I32EnumAttr<"ArgRole", "role of a kernel argument", [
    I32EnumAttrCase<"prefetch", 0>, I32EnumAttrCase<"input", 1>,
    I32EnumAttrCase<"output", 2>, I32EnumAttrCase<"scratch", 3>,
    I32EnumAttrCase<"size", 4>]> {
  let cppNamespace = "::mlir::pallas";
}

#endif // PALLAS_ENUMS
