//===- MgpuDialect.cpp - plgpu dialect, its mesh, transforms and barriers -===//
#include "pallas/Mgpu/Mgpu.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::plgpu;

#include "pallas/Mgpu/MgpuDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "pallas/Mgpu/MgpuTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pallas/Mgpu/MgpuAttrs.cpp.inc"

void PlgpuDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pallas/Mgpu/MgpuAttrs.cpp.inc"
      >();
}

void PlgpuDialect::initialize() {
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "pallas/Mgpu/MgpuTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pallas/Mgpu/MgpuOps.cpp.inc"
      >();
}

MeshAttr plgpu::getMesh(KernelOp kernel) {
  return kernel->getAttrOfType<MeshAttr>(PlgpuDialect::kMeshAttrName);
}

MeshAttr plgpu::getKernelMesh(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  return kernel ? getMesh(kernel) : MeshAttr();
}

//===----------------------------------------------------------------------===//
// #plgpu.mesh
//===----------------------------------------------------------------------===//

int64_t MeshAttr::getNumBlocks() const {
  int64_t n = 1;
  for (int64_t d : getGrid())
    n *= d;
  return n;
}

int64_t MeshAttr::getClusterSize() const {
  int64_t n = 1;
  for (int64_t d : getCluster())
    n *= d;
  return n;
}

std::optional<std::pair<MeshAttr::AxisKind, unsigned>>
MeshAttr::lookupAxis(StringRef name) const {
  for (auto [i, n] : llvm::enumerate(getGridNames()))
    if (cast<StringAttr>(n).getValue() == name)
      return std::make_pair(AxisKind::grid, unsigned(i));
  for (auto [i, n] : llvm::enumerate(getClusterNames()))
    if (cast<StringAttr>(n).getValue() == name)
      return std::make_pair(AxisKind::cluster, unsigned(i));
  if (!getThreadName().getValue().empty() && getThreadName().getValue() == name)
    return std::make_pair(AxisKind::thread, 0u);
  return std::nullopt;
}

SmallVector<int64_t> MeshAttr::launchGrid(ArrayRef<int64_t> grid, ArrayRef<int64_t> cluster) {
  size_t rank = std::max(grid.size(), cluster.size());
  SmallVector<int64_t> launch;
  for (size_t k = 0; k < rank; ++k) {
    size_t p = rank - 1 - k; // the padded axis
    int64_t g = p >= rank - grid.size() ? grid[p - (rank - grid.size())] : 1;
    int64_t c = p >= rank - cluster.size() ? cluster[p - (rank - cluster.size())] : 1;
    launch.push_back(ShapedType::isDynamic(g) ? g : g * c);
  }
  return launch;
}

MeshAttr::LaunchAxis MeshAttr::launchAxisOf(AxisKind kind, unsigned index) const {
  size_t g = getGrid().size(), c = getCluster().size();
  size_t rank = std::max(g, c);
  if (kind == AxisKind::cluster)
    return {unsigned(c - 1 - index), getCluster()[index]};
  // Grid axis i is padded axis i + rank - g, launch axis g - 1 - i.
  size_t p = index + rank - g;
  int64_t size = p >= rank - c ? getCluster()[p - (rank - c)] : 1;
  return {unsigned(g - 1 - index), size};
}

/// `name = [1, 2]`
static ParseResult parseIntList(AsmParser &p, StringRef name, SmallVector<int64_t> &out) {
  if (p.parseKeyword(name) || p.parseEqual())
    return failure();
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    int64_t v;
    if (p.parseInteger(v))
      return failure();
    out.push_back(v);
    return success();
  });
}

/// `name = ["a", "b"]`
static ParseResult parseNameList(AsmParser &p, StringRef name, ArrayAttr &out) {
  SmallVector<Attribute> names;
  if (p.parseKeyword(name) || p.parseEqual() ||
      p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        std::string s;
        if (p.parseString(&s))
          return failure();
        names.push_back(p.getBuilder().getStringAttr(s));
        return success();
      }))
    return failure();
  out = p.getBuilder().getArrayAttr(names);
  return success();
}

Attribute MeshAttr::parse(AsmParser &p, Type) {
  SmallVector<int64_t> grid, cluster;
  ArrayAttr gridNames, clusterNames;
  int64_t numThreads;
  std::string threadName;
  SMLoc loc = p.getCurrentLocation();
  if (p.parseLess() || parseIntList(p, "grid", grid) || p.parseComma() ||
      parseNameList(p, "grid_names", gridNames) || p.parseComma() ||
      parseIntList(p, "cluster", cluster) || p.parseComma() ||
      parseNameList(p, "cluster_names", clusterNames) || p.parseComma() ||
      p.parseKeyword("num_threads") || p.parseEqual() || p.parseInteger(numThreads) ||
      p.parseComma() || p.parseKeyword("thread_name") || p.parseEqual() ||
      p.parseString(&threadName) || p.parseGreater())
    return {};
  return p.getChecked<MeshAttr>(loc, p.getContext(), grid, gridNames, cluster, clusterNames,
                                numThreads, p.getBuilder().getStringAttr(threadName));
}

void MeshAttr::print(AsmPrinter &p) const {
  auto names = [&](ArrayAttr a) {
    p << "[";
    llvm::interleaveComma(a, p, [&](Attribute n) { p << n; });
    p << "]";
  };
  p << "<grid = [";
  llvm::interleaveComma(getGrid(), p);
  p << "], grid_names = ";
  names(getGridNames());
  p << ", cluster = [";
  llvm::interleaveComma(getCluster(), p);
  p << "], cluster_names = ";
  names(getClusterNames());
  p << ", num_threads = " << getNumThreads() << ", thread_name = " << getThreadName() << ">";
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> grid, ArrayAttr gridNames,
                               ArrayRef<int64_t> cluster, ArrayAttr clusterNames,
                               int64_t numThreads, StringAttr threadName) {
  if (gridNames.size() != grid.size() && !gridNames.empty())
    return emitError() << "#plgpu.mesh has " << grid.size() << " grid axes but "
                       << gridNames.size() << " grid names";
  if (clusterNames.size() != cluster.size() && !clusterNames.empty())
    return emitError() << "#plgpu.mesh has " << cluster.size() << " cluster axes but "
                       << clusterNames.size() << " cluster names";
  for (int64_t d : grid)
    if (d < 1)
      return emitError() << "#plgpu.mesh grid sizes must be positive, got " << d;
  if ((int64_t)cluster.size() > kMaxClusterRank)
    return emitError() << "#plgpu.mesh cluster has " << cluster.size()
                       << " axes, at most " << kMaxClusterRank << " are supported";
  int64_t blocks = 1;
  for (int64_t d : cluster) {
    if (d < 1)
      return emitError() << "#plgpu.mesh cluster sizes must be positive, got " << d;
    blocks *= d;
  }
  // CUDA launches clusters of at most 16 blocks (8 where portable).
  if (blocks > 16)
    return emitError() << "#plgpu.mesh clusters of " << blocks
                       << " blocks; at most 16 blocks per cluster";
  if (numThreads < 1 || numThreads > kMaxThreads)
    return emitError() << "#plgpu.mesh num_threads must be in [1, " << kMaxThreads
                       << "], got " << numThreads;
  llvm::StringSet<> seen;
  auto unique = [&](StringRef n) -> LogicalResult {
    if (n.empty())
      return emitError() << "#plgpu.mesh axis names must not be empty";
    if (!seen.insert(n).second)
      return emitError() << "#plgpu.mesh names axis '" << n << "' twice";
    return success();
  };
  for (ArrayAttr names : {gridNames, clusterNames})
    for (Attribute n : names) {
      auto s = dyn_cast<StringAttr>(n);
      if (!s)
        return emitError() << "#plgpu.mesh axis names must be strings, got " << n;
      if (failed(unique(s.getValue())))
        return failure();
    }
  if (!threadName.getValue().empty() && failed(unique(threadName.getValue())))
    return failure();
  return success();
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t bytes) {
  if (bytes != 32 && bytes != 64 && bytes != 128)
    return emitError() << "#plgpu.swizzle must be 32, 64 or 128 bytes, got " << bytes;
  return success();
}

LogicalResult BarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t numBarriers, int64_t numArrivals,
                                  ArrayAttr collectiveAxes) {
  if (collectiveAxes && (collectiveAxes.empty() ||
                         !llvm::all_of(collectiveAxes, llvm::IsaPred<StringAttr>)))
    return emitError() << "!plgpu.barrier collective axes must be a non-empty array of "
                          "cluster axis names, got "
                       << collectiveAxes;
  if (numBarriers < 1)
    return emitError() << "!plgpu.barrier needs at least one barrier, got " << numBarriers;
  // mbarrier arrival counts are 20-bit (PTX ISA, mbarrier.init).
  if (numArrivals < 1 || numArrivals > (1 << 20) - 1)
    return emitError() << "!plgpu.barrier arrivals must be in [1, 1048575], got "
                       << numArrivals;
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes: plgpu.mesh on kernels, plgpu.transforms and
// plgpu.collective_axes on run_scoped.
//===----------------------------------------------------------------------===//

LogicalResult PlgpuDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kMeshAttrName) {
    if (!isa<KernelOp>(op))
      return op->emitOpError("'") << name << "' belongs on a pallas.kernel";
    if (!isa<MeshAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be a #plgpu.mesh, got "
                                  << attr.getValue();
    return success();
  }
  if (name == kTransformsAttrName) {
    auto scoped = dyn_cast<RunScopedOp>(op);
    if (!scoped)
      return op->emitOpError("'") << name << "' belongs on a pallas.run_scoped";
    auto perValue = dyn_cast<ArrayAttr>(attr.getValue());
    unsigned n = scoped.getBody().getNumArguments();
    if (!perValue || perValue.size() != n)
      return op->emitOpError("'") << name << "' must hold one array per scoped value ("
                                  << n << ")";
    for (auto [i, list] : llvm::enumerate(perValue)) {
      auto transforms = dyn_cast<ArrayAttr>(list);
      if (!transforms)
        return op->emitOpError("'") << name << "' entry #" << i << " must be an array";
      if (transforms.empty())
        continue;
      auto ref = dyn_cast<RefType>(scoped.getBody().getArgument(i).getType());
      if (!ref || ref.getMemorySpace() != MemorySpace::smem)
        return op->emitOpError("scoped value #") << i << " has transforms but is not an SMEM ref";
      TilingAttr tiling;
      SwizzleAttr swizzle;
      for (Attribute t : transforms) {
        if (auto tile = dyn_cast<TilingAttr>(t)) {
          ArrayRef<int64_t> shape = ref.getShape(), dims = tile.getTile();
          if (dims.size() > shape.size())
            return op->emitOpError("scoped value #")
                   << i << ": tiling " << t << " has more dimensions than the ref";
          // The tiles cover the trailing dims exactly.
          for (auto [k, d] : llvm::enumerate(dims)) {
            int64_t extent = shape[shape.size() - dims.size() + k];
            if (d < 1 || extent % d != 0)
              return op->emitOpError("scoped value #")
                     << i << ": tiling " << t << " does not divide the ref's dim of " << extent;
          }
          tiling = tile;
          continue;
        }
        if (auto s = dyn_cast<SwizzleAttr>(t)) {
          swizzle = s;
          continue;
        }
        return op->emitOpError("scoped value #")
               << i << ": " << t << " is not a #plgpu.tiling or #plgpu.swizzle";
      }
      // A swizzled tile's rows are as long as the swizzle (what TMA and
      // wgmma address that way).
      int64_t bytes = ref.getElementType().getIntOrFloatBitWidth() / 8;
      if (tiling && swizzle && !tiling.getTile().empty() &&
          tiling.getTile().back() * bytes != swizzle.getBytes())
        return op->emitOpError("scoped value #")
               << i << ": tiles of " << tiling.getTile().back() << " x "
               << ref.getElementType() << " (" << tiling.getTile().back() * bytes
               << " bytes) rows under a " << swizzle.getBytes() << "-byte swizzle";
    }
    return success();
  }
  if (name == kCollectiveAxesAttrName) {
    auto axes = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<RunScopedOp>(op) || !axes)
      return op->emitOpError("'") << name << "' must be an array of axis names on a "
                                             "pallas.run_scoped";
    MeshAttr mesh = getKernelMesh(op);
    for (Attribute a : axes) {
      auto s = dyn_cast<StringAttr>(a);
      auto axis = s && mesh ? mesh.lookupAxis(s.getValue()) : std::nullopt;
      // Shared over the cluster's blocks, or the block's threads.
      if (!axis || axis->first == MeshAttr::AxisKind::grid)
        return op->emitOpError("collective axis ") << a << " is not a cluster or thread axis "
                                                       "of the kernel's mesh";
      // An accumulator lives in its warpgroup's registers.
      if (axis->first == MeshAttr::AxisKind::thread)
        for (BlockArgument v : cast<RunScopedOp>(op).getBody().getArguments())
          if (auto ref = dyn_cast<RefType>(v.getType());
              ref && ref.getMemorySpace() == MemorySpace::regs)
            return op->emitOpError("scoped value #")
                   << v.getArgNumber() << " is a WGMMA accumulator (regs), each thread's own; "
                                          "it cannot be shared over thread axis "
                   << a;
    }
    return success();
  }
  return op->emitOpError("unknown plgpu attribute '") << name << "'";
}
