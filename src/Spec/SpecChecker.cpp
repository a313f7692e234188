//===- SpecChecker.cpp - matching a launch spec against a kernel ----------===//
#include "pallas/Spec/SpecChecker.h"
#include "pallas/Mgpu/Mgpu.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::pallas;

namespace {
class Checker {
public:
  Checker(const LaunchSpec &spec, ModuleOp module, KernelOp kernel)
      : spec(spec), module(module), kernel(kernel) {}
  LogicalResult run();

private:
  InFlightDiagnostic error(const std::string &path, Location irLoc) {
    failed = true;
    InFlightDiagnostic d = emitError(spec.loc(path));
    d << (path.empty() ? std::string("spec") : path) << ": ";
    d.attachNote(irLoc) << "in kernel @" << spec.kernel << " here";
    return d;
  }
  void checkOperand(const SpecOperand &op, unsigned argIndex, StringRef role);
  void checkIndexFn(const SpecOperand &op, Location argLoc);
  void checkMesh();

  const LaunchSpec &spec;
  ModuleOp module;
  KernelOp kernel;
  bool failed = false;
};
} // namespace

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

void Checker::checkIndexFn(const SpecOperand &op, Location argLoc) {
  std::string path = op.path + ".index_map";
  auto fn = module.lookupSymbol<func::FuncOp>(op.indexFn);
  if (!fn) {
    error(path, argLoc) << "index map function @" << op.indexFn
                        << " is not a func.func in the module";
    return;
  }
  FunctionType type = fn.getFunctionType();
  unsigned gridRank = spec.grid.size();
  unsigned expectedInputs = gridRank + spec.numScalarPrefetch;
  auto i32 = IntegerType::get(kernel.getContext(), 32);
  bool inputsOk = type.getNumInputs() == expectedInputs;
  for (unsigned i = 0; inputsOk && i < gridRank; ++i)
    inputsOk = type.getInput(i) == i32;
  for (unsigned i = 0; inputsOk && i < spec.numScalarPrefetch; ++i)
    inputsOk = type.getInput(gridRank + i) == kernel.getArgumentTypes()[i];
  if (!inputsOk) {
    error(path, fn.getLoc())
        << "index map function @" << op.indexFn << " must take " << gridRank
        << " i32 grid indices followed by the " << spec.numScalarPrefetch
        << " scalar-prefetch ref(s), got " << type;
    return;
  }
  if (type.getNumResults() != op.shape.size() ||
      !llvm::all_of(type.getResults(), [&](Type t) { return t == i32; }))
    error(path, fn.getLoc()) << "index map function @" << op.indexFn
                             << " must return " << op.shape.size()
                             << " i32 block indices, got " << type;
}

void Checker::checkOperand(const SpecOperand &op, unsigned argIndex,
                           StringRef role) {
  Location argLoc = kernel.getArgument(argIndex).getLoc();
  auto ref = dyn_cast<RefType>(kernel.getArgumentTypes()[argIndex]);
  if (!ref) {
    error(op.path, argLoc) << role << " '" << op.name << "' is kernel argument #"
                           << argIndex << ", which is not a ref";
    return;
  }
  SmallVector<int64_t> refShape = op.refShape();
  if (ArrayRef<int64_t>(refShape) != ref.getShape()) {
    error(op.hasBlockShape ? op.path + ".block_shape" : op.path + ".shape",
          argLoc)
        << "block " << shapeText(refShape)
        << (op.hasBlockShape ? " (squeezed dims removed)" : " (the whole array)")
        << " does not match kernel argument #" << argIndex << " of type " << ref;
  }
  if (ref.getElementType() != op.elementType)
    error(op.path + ".dtype", argLoc)
        << "dtype " << op.dtype << " does not match kernel argument #"
        << argIndex << " of type " << ref;
  if (op.memorySpace == MemorySpace::any && op.hasBlockShape &&
      op.blockDims() != ArrayRef<int64_t>(op.shape))
    error(op.path + ".memory_space", argLoc)
        << "'any' operands are whole arrays; drop block_shape";
  if (!op.indexFn.empty()) {
    checkIndexFn(op, argLoc);
    return;
  }
  if (op.indexMap.getNumDims() != spec.grid.size())
    error(op.path + ".index_map", argLoc)
        << "index map takes " << op.indexMap.getNumDims()
        << " grid index(es) but the grid has rank " << spec.grid.size();
  else if (op.indexMap.getNumResults() != op.shape.size())
    error(op.path + ".index_map", argLoc)
        << "index map returns " << op.indexMap.getNumResults()
        << " block index(es) for an array of rank " << op.shape.size();
}

/// A plgpu kernel and its spec describe the same mesh: the kernel's
/// #plgpu.mesh is what its axis names resolve against, the spec's is what
/// is launched.
void Checker::checkMesh() {
  plgpu::MeshAttr mesh = plgpu::getMesh(kernel);
  if (!mesh && !spec.mesh)
    return;
  if (!mesh) {
    error("mesh", kernel.getLoc()) << "the spec gives a plgpu mesh but kernel @" << spec.kernel
                                   << " has no 'plgpu.mesh' attribute";
    return;
  }
  if (!spec.mesh) {
    error("", kernel.getLoc()) << "kernel @" << spec.kernel
                               << " is a plgpu kernel; its spec needs a 'mesh'";
    return;
  }
  auto names = [](ArrayAttr a) {
    SmallVector<std::string> out;
    for (Attribute n : a)
      out.push_back(cast<StringAttr>(n).getValue().str());
    return out;
  };
  const SpecMesh &m = *spec.mesh;
  if (ArrayRef<int64_t>(spec.grid) != mesh.getGrid())
    error("grid", kernel.getLoc()) << "grid " << shapeText(spec.grid)
                                   << " differs from the kernel's mesh " << mesh;
  else if (!m.gridNames.empty() && m.gridNames != names(mesh.getGridNames()))
    error("mesh.grid_names", kernel.getLoc()) << "differ from the kernel's mesh " << mesh;
  else if (ArrayRef<int64_t>(m.cluster) != mesh.getCluster())
    error("mesh.cluster", kernel.getLoc()) << "differs from the kernel's mesh " << mesh;
  else if (!m.clusterNames.empty() && m.clusterNames != names(mesh.getClusterNames()))
    error("mesh.cluster_names", kernel.getLoc()) << "differ from the kernel's mesh " << mesh;
  else if (m.numThreads != mesh.getNumThreads())
    error("mesh.num_threads", kernel.getLoc()) << m.numThreads << " differs from the kernel's mesh "
                                               << mesh;
  else if (m.threadName != mesh.getThreadName().getValue())
    error("mesh.thread_name", kernel.getLoc()) << "'" << m.threadName
                                               << "' differs from the kernel's mesh " << mesh;
  // The grid counts clusters: blocks launched are grid x cluster per axis
  // (the two aligned at their last axes, as JAX's). Only where the grid is
  // the mesh's (its axes are the ones asked about).
  if (ArrayRef<int64_t>(spec.grid) != mesh.getGrid())
    return;
  for (size_t i = 0; i < spec.grid.size(); ++i) {
    int64_t c = mesh.launchAxisOf(plgpu::MeshAttr::AxisKind::grid, i).clusterSize;
    if (c > 1 && ShapedType::isDynamic(spec.grid[i]))
      error("mesh.cluster", kernel.getLoc())
          << "a cluster of " << c << " runs along grid axis " << i
          << ", whose size is symbolic (clusters need a static grid axis)";
  }
}

LogicalResult Checker::run() {
  unsigned numArgs = kernel.getNumArguments();
  unsigned expected =
      spec.inputs.size() + spec.outputs.size() + spec.scratch.size();
  if (numArgs != expected) {
    error("", kernel.getLoc())
        << "spec gives " << spec.inputs.size() << " input(s), "
        << spec.outputs.size() << " output(s) and " << spec.scratch.size()
        << " scratch buffer(s) (" << expected << " refs), but kernel @"
        << spec.kernel << " takes " << numArgs << " argument(s)";
    return failure();
  }
  unsigned arg = 0;
  for (const SpecOperand &op : spec.inputs)
    checkOperand(op, arg++, "input");
  for (const SpecOperand &op : spec.outputs)
    checkOperand(op, arg++, "output");
  for (const SpecScratch &s : spec.scratch) {
    Location argLoc = kernel.getArgument(arg).getLoc();
    Type t = kernel.getArgumentTypes()[arg];
    if (s.isSemaphore()) {
      if (t != s.elementType)
        error(s.path, argLoc) << "scratch " << s.dtype
                              << " does not match kernel argument #" << arg
                              << " of type " << t;
    } else {
      auto ref = dyn_cast<RefType>(t);
      if (!ref || ref.getShape() != ArrayRef<int64_t>(s.shape) ||
          ref.getElementType() != s.elementType)
        error(s.path, argLoc)
            << "scratch " << shapeText(s.shape) << " " << s.dtype
            << " does not match kernel argument #" << arg << " of type " << t;
      else if (s.memorySpace != MemorySpace::none &&
               ref.getMemorySpace() != s.memorySpace)
        error(s.path + ".memory_space", argLoc)
            << "memory space " << stringifyMemorySpace(s.memorySpace)
            << " does not match kernel argument #" << arg << " of type " << t;
    }
    ++arg;
  }
  if (spec.vmap)
    for (const SpecOperand &op : spec.inputs)
      if (!op.indexFn.empty())
        error("vmap", kernel.getLoc())
            << "vmap of kernels with '@fn' index maps is not supported yet";
  checkMesh();
  // Program ids must name grid axes.
  kernel.walk([&](Operation *op) {
    int64_t axis = -1;
    if (auto p = dyn_cast<ProgramIdOp>(op))
      axis = p.getAxis();
    else if (auto n = dyn_cast<NumProgramsOp>(op))
      axis = n.getAxis();
    if (axis >= static_cast<int64_t>(spec.grid.size()))
      error("grid", op->getLoc())
          << "kernel asks for grid axis " << axis << " but the grid has rank "
          << spec.grid.size();
  });
  return failure(failed);
}

FailureOr<KernelOp> mlir::pallas::checkSpecAgainstKernel(const LaunchSpec &spec,
                                                         ModuleOp module) {
  KernelOp kernel;
  SmallVector<std::string> names;
  for (auto k : module.getOps<KernelOp>()) {
    names.push_back(k.getSymName().str());
    if (k.getSymName() == spec.kernel)
      kernel = k;
  }
  if (!kernel) {
    InFlightDiagnostic d = emitError(spec.loc("kernel"));
    d << "kernel: no pallas.kernel named @" << spec.kernel << " in the module";
    if (!names.empty()) {
      std::string list;
      for (auto &n : names)
        list += (list.empty() ? "@" : ", @") + n;
      d << " (it has " << list << ")";
    }
    return failure();
  }
  if (failed(Checker(spec, module, kernel).run()))
    return failure();
  return kernel;
}
