//===- GpuAttrs.td - register layouts of tensors on CUDA ---*- tablegen -*-===//
//
// pallas-assign-layouts gives the tensors that live in a tensor-core
// register layout (a dot's accumulator, kept across the loops that carry
// it) one of these encodings; every later pass reads the layout from the
// type. A tensor without an encoding is in the blocked layout: chunks of
// consecutive elements dealt round robin over the CTA's threads
// (BlockedLayout in targets/cuda/SimtLowering.h).
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_GPU_ATTRS
#define PALLAS_GPU_ATTRS

include "mlir/IR/AttrTypeBase.td"

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
  }];
  let parameters = (ins "int64_t":$warps);
  let assemblyFormat = "`<` `warps` `=` $warps `>`";
}

#endif // PALLAS_GPU_ATTRS
