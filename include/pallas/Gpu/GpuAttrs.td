//===- GpuAttrs.td - register layouts of tensors on CUDA ---*- tablegen -*-===//
//
// pallas-assign-layouts gives the tensors that live in a tensor-core
// register layout (a dot's accumulator, kept across the loops that carry
// it) one of these encodings; every later pass reads the layout from the
// type. A tensor without an encoding is in the blocked layout: chunks of
// consecutive elements dealt round robin over the CTA's threads
// (BlockedLayout in targets/cuda/Dialect/Layouts.h). It has no parameters of
// its own (it follows from the element count and num_warps, which is what
// keeps reshapes and expand_dims free), so it takes no encoding.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_GPU_ATTRS
#define PALLAS_GPU_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def PG_MmaEncodingAttr : AttrDef<PallasGpu_Dialect, "MmaEncoding"> {
  let mnemonic = "mma";
  let summary = "the mma.sync m16n8 accumulator layout";
  let description = [{
    `#pallas_gpu.mma<warps = [WM, WN]>`: the CTA's warps tile an [M, N]
    tensor WM x WN; each warp holds (M / 16 / WM) x (N / 8 / WN) tiles of
    16x8, four elements per thread per tile (PTX ISA, mma.m16n8k16
    fragments).
  }];
  let parameters = (ins "int64_t":$warpsM, "int64_t":$warpsN);
  let assemblyFormat = "`<` `warps` `=` `[` $warpsM `,` $warpsN `]` `>`";
}

def PG_WgmmaEncodingAttr : AttrDef<PallasGpu_Dialect, "WgmmaEncoding"> {
  let mnemonic = "wgmma";
  let summary = "the wgmma (sm_90a) m64nNk16 accumulator layout";
  let description = [{
    `#pallas_gpu.wgmma<warps = W>`: each of the W warps owns 16 consecutive
    rows (one m64 tile per warpgroup of four) and all N columns, as
    wgmma.mma_async writes its accumulator.

    `#pallas_gpu.wgmma<warps = W, column_groups = G>`: the W / 4
    warpgroups split the columns G ways as well as the rows: warpgroup g
    computes column block g / (W / 4 / G) (N / G columns, one wgmma of
    that width) of row block g mod (W / 4 / G). A dot of fewer rows than
    64 per warpgroup (a 64-row tile on two warpgroups) runs on wgmma so.
  }];
  let parameters = (ins "int64_t":$warps,
                        DefaultValuedParameter<"int64_t", "1">:$columnGroups);
  let assemblyFormat = "`<` `warps` `=` $warps (`,` `column_groups` `=` $columnGroups^)? `>`";
}

def PG_WgmmaF8AEncodingAttr : AttrDef<PallasGpu_Dialect, "WgmmaF8AEncoding"> {
  let mnemonic = "wgmma_f8_a";
  let summary = "an f8 A operand of wgmma (sm_90a) in registers";
  let description = [{
    `#pallas_gpu.wgmma_f8_a<warps = W>` on an f8 `tensor<M x K>`: the rows
    as in `#pallas_gpu.wgmma<warps = W>` (16 per warp, one m64 block per
    warpgroup), each thread holding, per m64 block and 32-column step,
    wgmma's four A registers of f8: rows g and g + 8 (lane 4 g + q),
    columns 4 q .. 4 q + 3 and 16 + 4 q .. 16 + 4 q + 3 (PTX ISA,
    wgmma.mma_async m64nNk32 with A in registers). The wgmma accumulator
    layout gives each thread two columns of each 8-column tile instead: a
    value computed there (fp8 attention's P) is converted to this layout
    once where it is computed, and the dots that read it take it as it is.
  }];
  let parameters = (ins "int64_t":$warps);
  let assemblyFormat = "`<` `warps` `=` $warps `>`";
}

def PG_SliceEncodingAttr : AttrDef<PallasGpu_Dialect, "SliceEncoding"> {
  let mnemonic = "slice";
  let summary = "the rows of a tensor-core accumulator layout, one value per row";
  let description = [{
    `#pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 8>>` on a
    `tensor<M x T>` (or `tensor<M x 1 x T>`): element r is held by every
    thread that holds row r in the parent layout, so a row reduction of a
    parent-layout tensor ends in it without leaving the registers and a
    broadcast back along the row needs no exchange. Row r of a 16-row tile
    is held by the four lanes 4 * (r % 8) + q of the warp owning the tile;
    each thread holds two rows per tile (r and r + 8). Only `dim = 1` of a
    parent whose warps do not split the columns (`warps = [WM, 1]` or
    wgmma) is supported.
  }];
  let parameters = (ins "int64_t":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def PG_SharedLayoutKind : I32EnumAttr<"SharedLayoutKind",
    "how a dot operand tile is laid out in shared memory", [
    I32EnumAttrCase<"swizzle_128b", 0>, I32EnumAttrCase<"core_matrices", 1>,
    I32EnumAttrCase<"padded_rows", 2>, I32EnumAttrCase<"row_major", 3>,
    I32EnumAttrCase<"swizzle_64b", 4>]> {
  let cppNamespace = "::mlir::pallas::pgpu";
  let genSpecializedAttr = 0;
}

def PG_SharedEncodingAttr : AttrDef<PallasGpu_Dialect, "SharedEncoding"> {
  let mnemonic = "shared";
  let summary = "the shared-memory layout of a staged dot operand tile";
  let description = [{
    The encoding of a ring's tile type (`!pallas_gpu.ring<S, tensor<R x C x T,
    #pallas_gpu.shared<kind>>>`), set by pallas-stage-loads from the dot
    that reads the tile and read by convert-tile-to-nvvm:

    - `swizzle_128b`: wgmma's 128-byte swizzle. Columns of 128-byte-wide
      atoms, R x 128 bytes each; the 16-byte chunks of row r are permuted
      by XOR with r % 8. Rows must be a multiple of 128 bytes.
    - `core_matrices`: wgmma's interleaved layout without swizzle: core
      matrices of 8 rows x 16 bytes, 144 bytes apart along a row.
    - `padded_rows`: row-major, rows padded by 16 bytes (mma.sync's
      ldmatrix-free fragment loads).
    - `row_major`: dense rows, neither padded nor swizzled, each slot a
      multiple of 128 bytes: what the TMA copies without a swizzle (the
      SMEM buffers of plgpu kernels that no wgmma reads, whose rows may be
      sliced or be narrower than 128 bytes).
    - `swizzle_64b`: the TMA's 64-byte swizzle, for tiles of 64-byte rows
      the threads read (an int8 A converted in registers): columns of
      64-byte-wide atoms, R x 64 bytes each; the 16-byte chunks of row r
      are permuted by XOR with (r / 2) % 4, so that the 8 rows of a
      fragment fall in different banks.

    The byte offsets follow from the kind and the tile's shape
    (`OperandSmemLayout` in targets/cuda/Dialect/SharedLayouts.h).
  }];
  let parameters = (ins EnumParameter<PG_SharedLayoutKind>:$kind);
  let assemblyFormat = "`<` $kind `>`";
}

def PG_TensorMapAttr : AttrDef<PallasGpu_Dialect, "TensorMap"> {
  let mnemonic = "tensor_map";
  let summary = "a TMA tensor map the launch code builds for the kernel";
  let description = [{
    In the kernel's `pallas_gpu.tensor_maps` (convert-tile-to-nvvm passes
    each as a `__grid_constant__` CUtensorMap parameter after the arrays).
    The map views array parameter `param` as `rows` rows of `row_elements`
    elements (`elem_bytes` each; the whole array), read in
    boxes of `box_rows` x `box_cols` elements laid out with the 128-byte
    swizzle (`#pallas_gpu.shared<swizzle_128b>`'s atoms: box_cols *
    elem_bytes = 128), with `swizzle_bytes = 64` the 64-byte one
    (`swizzle_64b`: box_cols * elem_bytes = 64), or with `swizzle_bytes =
    0` as dense rows (`#pallas_gpu.shared<row_major>`: box_cols *
    elem_bytes a multiple of 16, box_cols at most 256). A negative `rows` or `row_elements` is a symbolic
    size, `-1 - p`: the kernel's i32 parameter p holds it (and the launch
    builds the map from it).

    `data_type` is the CUtensorMapDataType of the elements where the TMA
    computes on them (a reducing store: it adds f16 as f16); -1, the
    default, views them as unsigned integers of `elem_bytes` (copies only
    move bytes).

    With `fragment_rows` (pallas-fragment-order-keys), a box holds its
    rows permuted within each 16: box row 16g + 8h + 2b + j is array row
    16g + 4b + 2h + j (the launch views the array in five dimensions:
    elements, then rows by strides of 1, 4, 2 and 16). A wgmma reading
    such a box as K^T gives each thread of a quad the scores of four
    consecutive keys, as an f8 A fragment takes them. `rows` and
    `box_rows` are then multiples of 16, and a box starts at a row that is.
  }];
  let parameters = (ins "int64_t":$param, "int64_t":$rows, "int64_t":$row_elements,
                        "int64_t":$elem_bytes,
                        "int64_t":$box_rows, "int64_t":$box_cols,
                        DefaultValuedParameter<"int64_t", "128">:$swizzle_bytes,
                        DefaultValuedParameter<"int64_t", "-1">:$data_type,
                        DefaultValuedParameter<"bool", "false">:$fragment_rows);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The same map, its elements named CUtensorMapDataType `type` (what
    /// a reducing store computes on).
    TensorMapAttr withDataType(int64_t type) const {
      return TensorMapAttr::get(getContext(), getParam(), getRows(), getRowElements(),
                                getElemBytes(), getBoxRows(), getBoxCols(), getSwizzleBytes(),
                                type, getFragmentRows());
    }
  }];
}

def PG_LaunchConfigAttr : AttrDef<PallasGpu_Dialect, "LaunchConfig"> {
  let mnemonic = "launch_config";
  let summary = "how the CUDA lowering launches a kernel";
  let description = [{
    On each kernel `gpu.func` (`pallas_gpu.launch_config`): what
    convert-tile-to-nvvm decided about launching it, in one place, which
    the CUDA backend reads once to write the manifest and the header.

    - `threads`: per CTA, 32 x num_warps plus a producer warpgroup's 128;
    - `grid`: CTAs along x, y, z; absent where symbolic sizes give the
      grid at launch;
    - `shared_bytes`: dynamic shared memory per CTA;
    - `cluster`: CTAs per thread-block cluster along x (1: none);
    - `persistent`: the CTAs loop over the programs (`grid` is then one
      CTA per SM of the chip compiled for, which launchers may lower);
    - `cluster_unused`: why the cluster the spec asks for is not used;
    - `tensor_maps`: the #pallas_gpu.tensor_map parameters after the
      arrays, in order.
  }];
  let parameters = (ins "int64_t":$threads,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr">:$grid,
                        "int64_t":$shared_bytes,
                        DefaultValuedParameter<"int64_t", "1">:$cluster,
                        DefaultValuedParameter<"bool", "false">:$persistent,
                        OptionalParameter<"::mlir::StringAttr">:$cluster_unused,
                        OptionalParameter<"::mlir::ArrayAttr">:$tensor_maps);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // PALLAS_GPU_ATTRS
