//===- TorchOp.cpp - the kernel as a PyTorch custom op --------------------===//
//
// The module is Python alone (ctypes over libcuda and over the host
// build's shared object): nothing to compile. What it knows of the kernel
// (operands, launch geometry, cubins) it reads from the manifest of each
// build it loads; the op's signature comes from the spec.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Bindings.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::pallas;

namespace {

// The part of the module that does not depend on the kernel.
constexpr const char *kRuntime = R"PY(

def _check(args):
    if len(args) != len(INPUTS):
        raise TypeError(f"{NAME} takes {len(INPUTS)} tensors, got {len(args)}")
    device = None
    for a, (name, shape, dtype) in zip(args, INPUTS):
        if not isinstance(a, torch.Tensor):
            raise TypeError(f"{NAME}: {name} must be a torch.Tensor, got {type(a).__name__}")
        if tuple(a.shape) != shape or a.dtype != dtype:
            raise TypeError(f"{NAME}: {name} must be {dtype}{list(shape)}, "
                            f"got {a.dtype}{list(a.shape)}")
        if not a.is_contiguous():
            raise ValueError(f"{NAME}: {name} must be contiguous (row-major)")
        if device is not None and a.device != device:
            raise ValueError(f"{NAME}: all inputs must be on one device, "
                             f"got {device} and {a.device}")
        device = a.device
    return device


def _outputs(device):
    return [torch.empty(shape, dtype=dtype, device=device) for _, shape, dtype in OUTPUTS]


class _CudaBuild:
    """A CUDA build: its cubins, loaded once per CUDA context."""

    def __init__(self, directory, manifest):
        self.launch = manifest["launch"]
        self.directory = directory
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.functions = {}
        self.lock = threading.Lock()

    def _check(self, result, what):
        if result != 0:
            raise RuntimeError(f"{NAME}: {what} failed (CUresult {result})")

    def _cubin(self, major, minor):
        # An arch-specific sm_XXa cubin runs on exactly its architecture;
        # sm_XY on X.Z with Z >= Y.
        best = None
        for arch, file in self.launch["cubins"].items():
            digits = arch[3:].rstrip("a")
            a_major, a_minor = int(digits[:-1]), int(digits[-1])
            if arch.endswith("a"):
                if (a_major, a_minor) == (major, minor):
                    return arch, file
            elif a_major == major and a_minor <= minor and (best is None or a_minor > best[0]):
                best = (a_minor, arch, file)
        if best is None:
            raise RuntimeError(f"{NAME}: no cubin for sm_{major}{minor} in {self.directory} "
                               f"(it has {', '.join(self.launch['cubins'])})")
        return best[1], best[2]

    def _tensor_map(self, base, m):
        # A CUtensorMap (128 bytes, on 64) viewing the array at `base` as
        # the kernel's TMA copies read it; kept alive by the caller.
        buf = ctypes.create_string_buffer(128 + 64)
        addr = (ctypes.addressof(buf) + 63) // 64 * 64
        b = m["element_bytes"]
        self._check(self.cuda.cuTensorMapEncodeTiled(
            ctypes.c_void_p(addr), ctypes.c_int({1: 0, 2: 1, 4: 2, 8: 4}[b]), ctypes.c_uint32(2),
            ctypes.c_void_p(base), (ctypes.c_uint64 * 2)(*m["dims"]),
            (ctypes.c_uint64 * 1)(m["dims"][0] * b), (ctypes.c_uint32 * 2)(*m["box"]),
            (ctypes.c_uint32 * 2)(1, 1), ctypes.c_int(0), ctypes.c_int(3), ctypes.c_int(3),
            ctypes.c_int(0)), "cuTensorMapEncodeTiled")
        return buf, addr

    def _function(self, device):
        context = ctypes.c_void_p()
        self._check(self.cuda.cuCtxGetCurrent(ctypes.byref(context)), "cuCtxGetCurrent")
        with self.lock:
            if context.value in self.functions:
                return self.functions[context.value]
            major, minor = torch.cuda.get_device_capability(device)
            arch, cubin = self._cubin(major, minor)
            image = open(os.path.join(self.directory, cubin), "rb").read()
            module, function = ctypes.c_void_p(), ctypes.c_void_p()
            self._check(self.cuda.cuModuleLoadData(ctypes.byref(module), image), "cuModuleLoadData")
            self._check(self.cuda.cuModuleGetFunction(ctypes.byref(function), module,
                                                      self.launch["function"].encode()),
                        "cuModuleGetFunction")
            shared = self.launch["shared_bytes"]
            if shared > 48 * 1024:
                # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                self._check(self.cuda.cuFuncSetAttribute(function, 8, shared), "cuFuncSetAttribute")
            # The code's CUtensorMap parameters, after the arrays.
            maps = self.launch.get("tensor_maps", {}).get(arch, [])
            self.functions[context.value] = (function, maps)
            return self.functions[context.value]

    def __call__(self, args, outs):
        device = args[0].device
        with torch.cuda.device(device):
            function, maps = self._function(device)
            arrays = list(args) + outs
            pointers = [ctypes.c_uint64(t.data_ptr()) for t in arrays]
            built = [self._tensor_map(arrays[m["param"]].data_ptr(), m) for m in maps]
            params = (ctypes.c_void_p * (len(pointers) + len(built)))(
                *[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in pointers],
                *[addr for _, addr in built])
            grid, block = list(self.launch["grid"]), self.launch["block"]
            if self.launch.get("persistent"):
                # Persistent CTAs (any count computes the same): one per SM
                # of this device, in whole clusters.
                c = self.launch.get("cluster", [1])[0]
                sms = torch.cuda.get_device_properties(device).multi_processor_count
                grid[0] = min(grid[0], max(c, sms // c * c))
            stream = ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream)
            self._check(self.cuda.cuLaunchKernel(
                function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                self.launch["shared_bytes"], stream, params, None), "cuLaunchKernel")


class _HostBuild:
    """A host build: its shared object, the grid split over threads."""

    def __init__(self, directory, manifest):
        self.launch = manifest["launch"]
        lib = ctypes.CDLL(os.path.join(directory, NAME + ".so"))
        self.run = getattr(lib, self.launch["packed_entry"])
        self.run.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p)]
        self.run.restype = None

    def __call__(self, args, outs):
        pointers = (ctypes.c_void_p * (len(args) + len(outs)))(
            *[t.data_ptr() for t in list(args) + outs])
        items = self.launch["work_items"]
        threads = max(1, min(items, torch.get_num_threads()))
        ranges = [(items * t // threads, items * (t + 1) // threads) for t in range(threads)]
        # ctypes lets go of the GIL during the calls: the ranges run in parallel.
        workers = [threading.Thread(target=self.run, args=(b, e, pointers)) for b, e in ranges[1:]]
        for w in workers:
            w.start()
        self.run(ranges[0][0], ranges[0][1], pointers)
        for w in workers:
            w.join()


_builds = {}


def load(directory):
    """Loads a build of the kernel (a pallasc output directory): a CUDA
    build serves tensors on CUDA devices, a host build tensors on the CPU."""
    manifest = json.load(open(os.path.join(directory, NAME + ".manifest.json")))
    if manifest.get("kernel") != KERNEL:
        raise ValueError(f"{directory} holds kernel {manifest.get('kernel')!r}, not {KERNEL!r}")
    kind = manifest.get("target_kind")
    if kind == "cuda":
        _builds["cuda"] = _CudaBuild(directory, manifest)
    elif kind == "host":
        _builds["cpu"] = _HostBuild(directory, manifest)
    else:
        raise ValueError(f"{NAME}: a {kind!r} build cannot run under PyTorch")


def _run(*args):
    device = _check(args)
    build = _builds.get(device.type)
    if build is None:
        raise RuntimeError(f"{NAME}: no build loaded for {device.type} tensors "
                           f"(load() a {'CUDA' if device.type == 'cuda' else 'host'} build)")
    outs = _outputs(device)
    build(args, outs)
    return outs[0] if len(outs) == 1 else tuple(outs)
)PY";

} // namespace

LogicalResult mlir::pallas::addTorchArtifacts(Location loc, const LaunchSpec &spec,
                                              TargetKind kind, std::vector<Artifact> &artifacts) {
  if (failed(bindings::checkBindable(loc, spec, kind, "--emit torch", "the op runs their builds",
                                     "PyTorch")))
    return failure();
  if (spec.inputs.empty())
    return emitError(loc) << "--emit torch needs a kernel with inputs (their device picks "
                             "the implementation)",
           failure();
  if (!spec.aliases.empty())
    return emitError(loc) << "--emit torch: outputs aliasing inputs "
                             "(input_output_aliases) are not supported (the op would "
                             "mutate its inputs)",
           failure();
  const std::string &n = spec.name;
  std::string py;
  llvm::raw_string_ostream os(py);
  std::string params, names;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    params += (i ? ", " : "") + spec.inputs[i].name + ": torch.Tensor";
    names += (i ? ", " : "") + spec.inputs[i].name;
  }
  std::string result = spec.outputs.size() == 1 ? "torch.Tensor" : "tuple[";
  if (spec.outputs.size() != 1) {
    for (size_t i = 0; i < spec.outputs.size(); ++i)
      result += std::string(i ? ", " : "") + "torch.Tensor";
    result += "]";
  }
  os << "\"\"\"PyTorch custom op `pallasc::" << n << "` for Pallas kernel '" << spec.kernel
     << "'.\n\nGenerated by pallasc " << PALLAS_VERSION << "; do not edit.\n\n"
     << "    import " << n << "_torch\n"
     << "    " << n << "_torch.load(\"OUT\")   # a pallasc output directory: a CUDA build\n"
     << "    " << n << "_torch.load(\"OUT_HOST\")   # and/or a host build\n"
     << "    outputs = torch.ops.pallasc." << n << "(" << names << ")\n\n"
     << "It runs on the device of its inputs (which must be contiguous, of the\n"
     << "spec's dtypes and shapes), allocates its outputs, launches on the\n"
     << "current stream, and traces under torch.compile (a fake implementation\n"
     << "gives the outputs' shapes).\n\"\"\"\n"
     << "import ctypes\nimport json\nimport os\nimport threading\n\nimport torch\n\n"
     << "NAME = \"" << n << "\"\nKERNEL = \"" << spec.kernel << "\"\n"
     << "# (name, shape, dtype) of each input and output, in spec order.\n";
  auto torchDType = [](StringRef numpy) { return "torch." + numpy.str(); };
  bindings::writeOperandTable(os, "INPUTS", spec.inputs, torchDType);
  bindings::writeOperandTable(os, "OUTPUTS", spec.outputs, torchDType);
  os << kRuntime << "\n\n"
     << "@torch.library.custom_op(\"pallasc::" << n << "\", mutates_args=())\n"
     << "def " << n << "(" << params << ") -> " << result << ":\n"
     << "    return _run(" << names << ")\n\n\n"
     << "@" << n << ".register_fake\n"
     << "def _(" << params << "):\n"
     << "    outs = _outputs(" << spec.inputs.front().name << ".device)\n"
     << "    return outs[0] if len(outs) == 1 else tuple(outs)\n";
  artifacts.push_back({n + "_torch.py", py, "torch"});
  return success();
}
