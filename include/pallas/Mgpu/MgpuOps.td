//===- MgpuOps.td - the Pallas:MGPU model (plgpu.kernel) ----*- tablegen -*-===//
//
// Kernels written with `plgpu.kernel` (JAX's jax.experimental.pallas.
// mosaic_gpu): a `pallas.kernel` carrying a `#plgpu.mesh`, whose arguments
// are whole arrays in global memory, and whose schedule is the user's: one
// Pallas thread is one warpgroup, and the copies, barriers and tensor-core
// ops below run where they are written. Everything else in such a kernel
// (loads and stores of refs, arithmetic, scf, run_scoped, atomics) is the
// `pallas` dialect and upstream MLIR, as in every kernel.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_MGPU_OPS
#define PALLAS_MGPU_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "pallas/Dialect/PallasTypes.td"

def Plgpu_Dialect : Dialect {
  let name = "plgpu";
  let summary = "the Pallas:MGPU (Mosaic GPU) kernel model";
  let cppNamespace = "::mlir::pallas::plgpu";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// On a pallas.kernel: its #plgpu.mesh (what makes it an MGPU kernel).
    static constexpr ::llvm::StringLiteral kMeshAttrName = "plgpu.mesh";
    /// On a pallas.run_scoped: per scoped value, the array of layout
    /// transforms the user gave its SMEM (#plgpu.tiling, #plgpu.swizzle).
    static constexpr ::llvm::StringLiteral kTransformsAttrName = "plgpu.transforms";
    /// On a pallas.run_scoped: the cluster axes its scratch is shared over.
    static constexpr ::llvm::StringLiteral kCollectiveAxesAttrName =
        "plgpu.collective_axes";
  private:
    void registerAttributes();
  public:
  }];
}

class Plgpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plgpu_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Plgpu_MeshAttr : AttrDef<Plgpu_Dialect, "Mesh"> {
  let mnemonic = "mesh";
  let summary = "the launch mesh of a plgpu.kernel";
  let description = [{
    `#plgpu.mesh<grid = [2, 2], grid_names = ["m", "n"], cluster = [],
    cluster_names = [], num_threads = 1, thread_name = "">`: the grid of
    blocks, the cluster shape (at most 3-D), and the number of Pallas threads
    (warpgroups) per block, each axis with the name `lax.axis_index` reads
    it by. An empty thread name means the threads are unnamed.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$grid,
                        "::mlir::ArrayAttr":$gridNames,
                        ArrayRefParameter<"int64_t">:$cluster,
                        "::mlir::ArrayAttr":$clusterNames,
                        "int64_t":$numThreads,
                        "::mlir::StringAttr":$threadName);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr int64_t kMaxThreads = 16;
    static constexpr int64_t kMaxClusterRank = 3;
    /// Threads of a warpgroup, the unit one Pallas thread stands for.
    static constexpr int64_t kWarpgroupThreads = 128;
    int64_t getNumBlocks() const;
    int64_t getClusterSize() const;
    /// Which axis `name` is: a grid axis, a cluster axis or the thread axis.
    enum class AxisKind { grid, cluster, thread };
    std::optional<std::pair<AxisKind, unsigned>> lookupAxis(::llvm::StringRef name) const;

    /// The launch, as JAX's: the grid counts clusters, and both are
    /// aligned at their last axes (padded with 1s in front to one rank L)
    /// and reversed, so that launch axis 0 (CUDA's x) is the grid's and
    /// the cluster's last axis. Launch axis k runs over grid x cluster
    /// blocks of that pair of axes, the cluster's fastest.
    static ::llvm::SmallVector<int64_t> launchGrid(::llvm::ArrayRef<int64_t> grid,
                                                   ::llvm::ArrayRef<int64_t> cluster);
    /// Where grid or cluster axis `index` is in the launch: its launch
    /// axis and the cluster's size along that axis (the grid index is the
    /// launch index divided by it, the cluster index the remainder).
    struct LaunchAxis { unsigned axis; int64_t clusterSize; };
    LaunchAxis launchAxisOf(AxisKind kind, unsigned index) const;
  }];
}

def Plgpu_TilingAttr : AttrDef<Plgpu_Dialect, "Tiling"> {
  let mnemonic = "tiling";
  let summary = "plgpu.TilingTransform: SMEM stored in tiles of this shape";
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile);
  let assemblyFormat = "`<` $tile `>`";
}

def Plgpu_SwizzleAttr : AttrDef<Plgpu_Dialect, "Swizzle"> {
  let mnemonic = "swizzle";
  let summary = "plgpu.SwizzleTransform: 32, 64 or 128-byte swizzled rows";
  let parameters = (ins "int64_t":$bytes);
  let assemblyFormat = "`<` $bytes `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Plgpu_BarrierType : TypeDef<Plgpu_Dialect, "Barrier"> {
  let mnemonic = "barrier";
  let summary = "plgpu.Barrier: an array of mbarriers in shared memory";
  let description = [{
    `!plgpu.barrier<N, arrivals = A>`: N barriers, each completing a phase
    when A arrivals (barrier_arrive, or a copy issued with it, which also
    waits for the bytes it brings) have been made. barrier_wait waits for
    the phase after the one the thread last waited for.

    `!plgpu.barrier<N, arrivals = A, collective = ["c", ...]>` is a
    `plgpu.ClusterBarrier` over cluster axes c, ...: every block of the
    cluster along those axes has its own, and an arrival lands on each of
    them, so that a phase completes once every one of those blocks made A
    arrivals (A times the blocks in all).
  }];
  let parameters = (ins "int64_t":$numBarriers, "int64_t":$numArrivals,
                        OptionalParameter<"ArrayAttr">:$collectiveAxes);
  let builders = [
    TypeBuilder<(ins "int64_t":$numBarriers, "int64_t":$numArrivals), [{
      return $_get($_ctxt, numBarriers, numArrivals, ArrayAttr());
    }]>
  ];
  let assemblyFormat = [{
    `<` $numBarriers `,` `arrivals` `=` $numArrivals (`,` `collective` `=` $collectiveAxes^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Plgpu_BarrierIndex : AnyTypeOf<[AnySignlessInteger, Index]>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def Plgpu_AxisIndexOp : Plgpu_Op<"axis_index", [Pure]> {
  let summary = "lax.axis_index: this block's, cluster's or thread's index along a named axis";
  let arguments = (ins StrAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

def Plgpu_CopyGmemToSmemOp : Plgpu_Op<"copy_gmem_to_smem", [AttrSizedOperandSegments]> {
  let summary = "start copying a GMEM window into SMEM (TMA)";
  let description = [{
    With a barrier, the copy arrives on it once and the barrier's phase
    completes only when the bytes have landed (TMA, complete_tx). Without
    one, the copy is awaited by plgpu.wait_gmem_to_smem. `collective_axes`
    multicasts the copy to the blocks of those cluster axes (each receives the
    whole window). `partitioned = d` (JAX's leader_tracked=PARTITIONED(d),
    one collective axis of n blocks) splits the window along dimension d
    instead: block r receives slice r of n (the destination's shape), and
    the copy arrives on the first block's barrier only, for all n slices'
    bytes (Blackwell's CTA-pair MMA reads them there).
  }];
  let arguments = (ins Pallas_AnyRef:$src, Pallas_AnyRef:$dst,
                       Optional<Plgpu_BarrierType>:$barrier,
                       Optional<Plgpu_BarrierIndex>:$barrierIndex,
                       OptionalAttr<StrArrayAttr>:$collective_axes,
                       OptionalAttr<I64Attr>:$partitioned);
  let assemblyFormat = [{
    $src `->` $dst (`,` $barrier^)? (`[` $barrierIndex^ `]`)? attr-dict
    `:` type($src) `,` type($dst) (`,` qualified(type($barrier))^)? (`,` type($barrierIndex)^)?
  }];
  let hasVerifier = 1;
}

def Plgpu_CopySmemToGmemOp : Plgpu_Op<"copy_smem_to_gmem"> {
  let summary = "start copying SMEM into a GMEM window (TMA store)";
  let description = [{
    The copy joins the thread's open bulk group, which it closes unless
    `commit_group = false`; plgpu.wait_smem_to_gmem awaits groups. SMEM the
    threads wrote must be made visible first (plgpu.commit_smem).
    `reduction` ("add", "min", "max", "inc", "dec", "and", "or", "xor")
    combines with what GMEM holds instead of overwriting it.
  }];
  let arguments = (ins Pallas_AnyRef:$src, Pallas_AnyRef:$dst,
                       DefaultValuedAttr<BoolAttr, "true">:$commit_group,
                       OptionalAttr<StrAttr>:$reduction);
  let assemblyFormat = "$src `->` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Plgpu_CommitGroupOp : Plgpu_Op<"commit_group"> {
  let summary = "close the thread's open group of SMEM -> GMEM copies";
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Plgpu_WaitSmemToGmemOp : Plgpu_Op<"wait_smem_to_gmem"> {
  let summary = "wait until at most N groups of SMEM -> GMEM copies are pending";
  let description = [{
    With `read_only`, only until their SMEM has been read (it may be
    overwritten), not until GMEM is written.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                       UnitAttr:$read_only);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Plgpu_CommitSmemOp : Plgpu_Op<"commit_smem"> {
  let summary = "make the thread's SMEM writes visible to the copy engine";
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

class Plgpu_BarrierOp<string mnemonic> : Plgpu_Op<mnemonic> {
  let arguments = (ins Plgpu_BarrierType:$barrier,
                       Optional<Plgpu_BarrierIndex>:$index);
  let hasVerifier = 1;
}

def Plgpu_BarrierArriveOp : Plgpu_BarrierOp<"barrier_arrive"> {
  let summary = "arrive on one barrier of the array";
  let assemblyFormat = [{
    $barrier (`[` $index^ `]`)? attr-dict `:` qualified(type($barrier)) (`,` type($index)^)?
  }];
}

def Plgpu_BarrierWaitOp : Plgpu_BarrierOp<"barrier_wait"> {
  let summary = "wait for the barrier's next phase to complete";
  let assemblyFormat = [{
    $barrier (`[` $index^ `]`)? attr-dict `:` qualified(type($barrier)) (`,` type($index)^)?
  }];
}

def Plgpu_BarrierTestOp : Plgpu_BarrierOp<"barrier_test"> {
  let summary = "whether the barrier's next phase has completed (no wait)";
  let results = (outs I1:$completed);
  let assemblyFormat = [{
    $barrier (`[` $index^ `]`)? attr-dict `:` qualified(type($barrier)) (`,` type($index)^)?
    `->` type($completed)
  }];
}

//===----------------------------------------------------------------------===//
// Tensor cores and registers
//===----------------------------------------------------------------------===//

def Plgpu_WgmmaOp : Plgpu_Op<"wgmma"> {
  let summary = "acc += a @ b on the warpgroup's tensor cores, asynchronously";
  let description = [{
    `acc` is the warpgroup's accumulator (a `regs` ref, [M, N], f32 or i32,
    or f16; scoped by pallas.run_scoped, it starts at zero, as plgpu.ACC), `b` an SMEM ref ([K, N], or [N, K] with `transpose_b`), `a` an
    SMEM ref ([M, K], or [K, M] with `transpose_a`) or a tensor held in
    registers. The product completes at a plgpu.wgmma_wait; reading the
    accumulator before that reads an unfinished sum.
  }];
  let arguments = (ins Pallas_AnyRef:$acc, AnyType:$a, Pallas_AnyRef:$b,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let assemblyFormat = [{
    $acc `,` $a `,` $b attr-dict `:` type($acc) `,` type($a) `,` type($b)
  }];
  let hasVerifier = 1;
}

def Plgpu_WgmmaWaitOp : Plgpu_Op<"wgmma_wait"> {
  let summary = "wait until at most N of the warpgroup's wgmma groups are pending";
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Plgpu_SetMaxRegistersOp : Plgpu_Op<"set_max_registers"> {
  let summary = "raise or lower the registers each thread of the warpgroup may use";
  let arguments = (ins I64Attr:$count, UnitAttr:$increase, UnitAttr:$decrease);
  let assemblyFormat = "$count attr-dict";
  let hasVerifier = 1;
}

def Plgpu_LayoutCastOp : Plgpu_Op<"layout_cast", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "plgpu.layout_cast: hold the value in the named register layout";
  let description = [{
    The value is unchanged; `layout` (wgmma, wgmma_transposed, wgmma_row,
    wgmma_col, wg_splat, wg_strided, tiled) says how the warpgroup should
    hold it.
  }];
  let arguments = (ins AnyRankedTensor:$input, StrAttr:$layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // PALLAS_MGPU_OPS
