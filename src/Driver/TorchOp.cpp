//===- TorchOp.cpp - the kernel as a PyTorch custom op --------------------===//
//
// The module is Python alone (ctypes over libcuda and over the host
// build's shared object): nothing to compile. What it knows of the kernel
// (operands, launch geometry, cubins) it reads from the manifest of each
// build it loads; the op's signature comes from the spec. The op is a
// torch.library definition with one implementation per device type (no
// Python autograd layer between the dispatcher and the launch), and a call
// does only what cannot be done once: checks written out for this kernel's
// shapes, the outputs' allocation, the pointers into a parameter block
// kept per device, and cuLaunchKernel.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Bindings.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::pallas;

namespace {

// The part of the module that does not depend on the kernel.
constexpr const char *kRuntime = R"PY(
# What the launch path reads of torch on every call: the current device and
# its current stream, through the functions torch's own bindings use when
# they exist (the public ones cost microseconds).
_current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or \
    (lambda index: torch.cuda.current_stream(index).cuda_stream)


# Tensor maps a device keeps encoded, per map.
_MAP_CACHE = 4


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
    # The outputs the op returns: those not written into an input.
    return [torch.empty(shape, dtype=dtype, device=device)
            for n, (_, shape, dtype) in enumerate(OUTPUTS) if n not in ALIASES]


def _result(outs):
    return None if not outs else outs[0] if len(outs) == 1 else tuple(outs)


def spec_outputs(args, result):
    """Every output of the kernel in spec order, from the op's arguments and
    what it returned: an aliased output is its input, written in place."""
    returned = iter(() if result is None else result if isinstance(result, tuple)
                    else (result,))
    return tuple(args[ALIASES[n]] if n in ALIASES else next(returned)
                 for n in range(len(OUTPUTS)))


class _Parameters:
    """One thread's launch parameters for one device: the arrays' pointers
    (rewritten per call) and the tensor maps (re-encoded only for arrays
    not seen lately), where cuLaunchKernel's parameter array points."""

    def __init__(self, arrays, loaded, block, shared):
        maps = loaded.maps
        self.pointers = (ctypes.c_uint64 * arrays)()
        # Each CUtensorMap: 128 bytes on a 64-byte boundary.
        self.map_memory = ctypes.create_string_buffer(64 + 128 * len(maps))
        first = (ctypes.addressof(self.map_memory) + 63) // 64 * 64
        self.map_addresses = [first + 128 * k for k in range(len(maps))]
        self.map_bases = [None] * len(maps)
        self.map_cache = [{} for _ in maps]
        base = ctypes.addressof(self.pointers)
        self.params = (ctypes.c_void_p * (arrays + len(maps)))(
            *[base + 8 * i for i in range(arrays)], *self.map_addresses)
        # cuLaunchKernel's arguments, the stream's value set per call.
        self.stream = ctypes.c_void_p(0)
        self.arguments = (loaded.function, *loaded.grid, block, 1, 1, shared, self.stream,
                          self.params, None)


class _Loaded:
    """The kernel in one device's primary context: its function, the grid
    for that device, its tensor maps, and each thread's parameters."""

    def __init__(self, function, grid, maps):
        self.function = ctypes.c_void_p(function)
        self.grid = grid
        self.maps = maps
        self.threads = threading.local()


class _CudaBuild:
    """A CUDA build: its cubins, loaded once per device."""

    def __init__(self, directory, manifest):
        self.launch = manifest["launch"]
        self.directory = directory
        self.arrays = len(INPUTS) + len(OUTPUTS)
        self.cuda = ctypes.CDLL("libcuda.so.1")
        # The launch itself: no argtypes (ctypes converts plain ints and
        # ctypes objects fastest), and the GIL kept over the few
        # microseconds it takes.
        self.launch_kernel = ctypes.PyDLL("libcuda.so.1").cuLaunchKernel
        self.block = self.launch["block"][0]
        self.shared = self.launch["shared_bytes"]
        self.loaded = {}
        self.lock = threading.Lock()
        # With one device, the current one is always the tensors'.
        self.one_device = torch.cuda.device_count() == 1

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

    def _encode(self, address, base, m):
        # The TMA's view of the array at `base` as the kernel's copies read it.
        # (Byte strides of dims 1 on where the manifest gives them: rows
        # permuted within 16, a 5-D view.)
        b, n = m["element_bytes"], len(m["dims"])
        strides = m.get("strides", [m["dims"][0] * b])
        self._check(self.cuda.cuTensorMapEncodeTiled(
            ctypes.c_void_p(address), ctypes.c_int(m.get("data_type", {1: 0, 2: 1, 4: 2, 8: 4}[b])),
            ctypes.c_uint32(n), ctypes.c_void_p(base), (ctypes.c_uint64 * n)(*m["dims"]),
            (ctypes.c_uint64 * (n - 1))(*strides), (ctypes.c_uint32 * n)(*m["box"]),
            (ctypes.c_uint32 * n)(*([1] * n)), ctypes.c_int(0),
            ctypes.c_int({0: 0, 64: 2, 128: 3}[m.get("swizzle_bytes", 128)]), ctypes.c_int(3),
            ctypes.c_int(0)), "cuTensorMapEncodeTiled")

    def _place_maps(self, maps, parameters, pointers):
        # Map k for the array it views into its parameter slot: one encoded
        # before for that array (outputs alternate between a few buffers of
        # torch's allocator), else encoded anew, kept in place of the oldest.
        for k, m in enumerate(maps):
            base = pointers[m["param"]]
            if parameters.map_bases[k] == base:
                continue
            address, cache = parameters.map_addresses[k], parameters.map_cache[k]
            parameters.map_bases[k] = None
            encoded = cache.get(base)
            if encoded is None:
                self._encode(address, base, m)
                if len(cache) == _MAP_CACHE:
                    del cache[next(iter(cache))]
                cache[base] = ctypes.string_at(address, 128)
            else:
                ctypes.memmove(address, encoded, 128)
            parameters.map_bases[k] = base

    def _load(self, index):
        # Once per device, in its primary context (torch's).
        with self.lock:
            if index in self.loaded:
                return self.loaded[index]
            with torch.cuda.device(index):
                torch.cuda.init()
                major, minor = torch.cuda.get_device_capability(index)
                arch, cubin = self._cubin(major, minor)
                image = open(os.path.join(self.directory, cubin), "rb").read()
                module, function = ctypes.c_void_p(), ctypes.c_void_p()
                self._check(self.cuda.cuModuleLoadData(ctypes.byref(module), image),
                            "cuModuleLoadData")
                self._check(self.cuda.cuModuleGetFunction(
                    ctypes.byref(function), module, self.launch["function"].encode()),
                    "cuModuleGetFunction")
                if self.shared > 48 * 1024:
                    # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                    self._check(self.cuda.cuFuncSetAttribute(function, 8, self.shared),
                                "cuFuncSetAttribute")
                grid = list(self.launch["grid"])
                if self.launch.get("persistent"):
                    # Persistent CTAs (any count computes the same): one per
                    # SM of this device, in whole clusters.
                    c = self.launch.get("cluster", [1])[0]
                    sms = torch.cuda.get_device_properties(index).multi_processor_count
                    grid[0] = min(grid[0], max(c, sms // c * c))
            # The code's CUtensorMap parameters, after the arrays.
            maps = self.launch.get("tensor_maps", {}).get(arch, [])
            self.loaded[index] = _Loaded(function.value, tuple(grid), maps)
            return self.loaded[index]

    def __call__(self, index, pointers):
        """Launches on the current stream of device `index` with the
        arrays at `pointers` (inputs, then outputs)."""
        loaded = self.loaded.get(index) or self._load(index)
        if not self.one_device and index != _current_device():
            with torch.cuda.device(index):
                return self(index, pointers)
        try:
            parameters = loaded.threads.parameters
        except AttributeError:
            parameters = loaded.threads.parameters = _Parameters(self.arrays, loaded, self.block,
                                                                 self.shared)
        parameters.pointers[:] = pointers
        if loaded.maps:
            self._place_maps(loaded.maps, parameters, pointers)
        parameters.stream.value = _raw_stream(index)
        result = self.launch_kernel(*parameters.arguments)
        if result != 0:
            self._check(result, "cuLaunchKernel")


class _HostBuild:
    """A host build: its shared object, the grid split over a pool of threads."""

    _pool = None

    def __init__(self, directory, manifest):
        self.launch = manifest["launch"]
        lib = ctypes.CDLL(os.path.join(directory, NAME + ".so"))
        self.run = getattr(lib, self.launch["packed_entry"])
        self.run.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p)]
        self.run.restype = None

    def __call__(self, pointers):
        params = (ctypes.c_void_p * len(pointers))(*pointers)
        items = self.launch["work_items"]
        threads = max(1, min(items, torch.get_num_threads()))
        if threads == 1:
            self.run(0, items, params)
            return
        if _HostBuild._pool is None:
            _HostBuild._pool = concurrent.futures.ThreadPoolExecutor(
                torch.get_num_threads(), thread_name_prefix="pallasc-" + NAME)
        # ctypes lets go of the GIL during the calls: the ranges run in parallel.
        ranges = [(items * t // threads, items * (t + 1) // threads) for t in range(threads)]
        pending = [_HostBuild._pool.submit(self.run, b, e, params) for b, e in ranges[1:]]
        self.run(ranges[0][0], ranges[0][1], params)
        for p in pending:
            p.result()


_builds = {}
_cuda_build = None  # _builds["cuda"], where the fast path reads it
cuda_kernel = None  # the op's CUDA kernel, once a CUDA build is loaded: "compiled" or "python"


def _register_cuda_kernel(directory):
    # Once per process: the C++ kernel where the build directory holds it
    # built (lib{NAME}_torch_op.so from {NAME}_torch_op.cc), else _cuda.
    global cuda_kernel
    if cuda_kernel is not None:
        return
    compiled = os.path.join(directory, f"lib{NAME}_torch_op.so")
    if os.path.exists(compiled):
        torch.ops.load_library(compiled)
        cuda_kernel = "compiled"
    else:
        _library.impl(NAME, _cuda, "CUDA")
        cuda_kernel = "python"


def load(directory):
    """Loads a build of the kernel (a pallasc output directory): a CUDA
    build serves tensors on CUDA devices (through its lib{NAME}_torch_op.so
    when it holds one built, see {NAME}_torch_op.cc), a host build tensors
    on the CPU."""
    global _cuda_build
    manifest = json.load(open(os.path.join(directory, NAME + ".manifest.json")))
    if manifest.get("kernel") != KERNEL:
        raise ValueError(f"{directory} holds kernel {manifest.get('kernel')!r}, not {KERNEL!r}")
    kind = manifest.get("target_kind")
    if kind == "cuda":
        _builds["cuda"] = _cuda_build = _CudaBuild(directory, manifest)
        _register_cuda_kernel(directory)
    elif kind == "host":
        _builds["cpu"] = _HostBuild(directory, manifest)
    else:
        raise ValueError(f"{NAME}: a {kind!r} build cannot run under PyTorch")


def _device_argument(args):
    # A kernel without inputs: the op's one argument is the device it runs on.
    if len(args) != 1 or not isinstance(args[0], torch.device):
        raise TypeError(f"{NAME} takes the torch.device to run on (the kernel has no inputs)")
    device = args[0]
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", _current_device())
    return device


def _run(*args):
    # Every check, with its message: the path of calls the fast one declines.
    device = _check(args) if INPUTS else _device_argument(args)
    args = args if INPUTS else ()
    build = _builds.get(device.type)
    if build is None:
        raise RuntimeError(f"{NAME}: no build loaded for {device.type} tensors "
                           f"(load() a {'CUDA' if device.type == 'cuda' else 'host'} build)")
    outs = _outputs(device)
    # Inputs, then every output: an aliased one at its input's memory.
    pointers = [t.data_ptr() for t in (*args, *spec_outputs(args, tuple(outs)))]
    if device.type == "cuda":
        build(device.index, pointers)
    else:
        build(pointers)
    return _result(outs)
)PY";

} // namespace

LogicalResult mlir::pallas::addTorchArtifacts(Location loc, const LaunchSpec &spec,
                                              TargetKind kind, std::vector<Artifact> &artifacts) {
  if (failed(bindings::checkBindable(loc, spec, kind, "--emit torch", "the op runs their builds",
                                     "PyTorch")))
    return failure();
  const std::string &n = spec.name;
  auto torchDType = [](StringRef numpy) { return "torch." + numpy.str(); };
  // An output aliasing an input (input_output_aliases) is written into that
  // input in place: the schema marks the input mutable (`Tensor(a!)`, which
  // torch.compile functionalizes) and the op returns the other outputs.
  // A kernel without inputs takes the device to run on (torch's rule for ops
  // without tensors; a BackendSelect kernel dispatches on it).
  bool deviceArgument = spec.inputs.empty();
  std::string params, names, schemaArgs, schemaResult;
  std::vector<std::string> pointers;
  if (deviceArgument) {
    params = "device: torch.device";
    names = "device";
    schemaArgs = "Device device";
  }
  unsigned aliasSets = 0;
  for (auto [i, in] : llvm::enumerate(spec.inputs)) {
    params += (i ? ", " : "") + in.name + ": torch.Tensor";
    names += (i ? ", " : "") + in.name;
    std::string type = "Tensor";
    if (spec.aliasedOutput(i)) {
      unsigned set = aliasSets++;
      type += "(" + (set < 26 ? std::string(1, char('a' + set)) : "a" + std::to_string(set)) + "!)";
    }
    schemaArgs += (i ? ", " : "") + type + " " + in.name;
    pointers.push_back(in.name + ".data_ptr()");
  }
  size_t returned = spec.outputs.size() - spec.aliases.size();
  std::string result = returned == 0 ? "None" : returned == 1 ? "torch.Tensor" : "tuple[";
  schemaResult = returned == 0 ? "()" : returned == 1 ? "Tensor" : "(";
  if (returned > 1) {
    for (size_t i = 0; i < returned; ++i) {
      result += std::string(i ? ", " : "") + "torch.Tensor";
      schemaResult += std::string(i ? ", " : "") + "Tensor";
    }
    result += "]";
    schemaResult += ")";
  }
  std::string py;
  llvm::raw_string_ostream os(py);
  os << "\"\"\"PyTorch op `pallasc::" << n << "` for Pallas kernel '" << spec.kernel
     << "'.\n\nGenerated by pallasc " << PALLAS_VERSION << "; do not edit.\n\n"
     << "    import " << n << "_torch\n"
     << "    " << n << "_torch.load(\"OUT\")   # a pallasc output directory: a CUDA build\n"
     << "    " << n << "_torch.load(\"OUT_HOST\")   # and/or a host build\n"
     << "    outputs = torch.ops.pallasc." << n << "(" << names << ")\n\n"
     << "It runs on the device of its inputs (which must be contiguous, of the\n"
     << "spec's dtypes and shapes), allocates its outputs (an output aliasing an\n"
     << "input is written into that input in place, and not returned), launches on the\n"
     << "current stream (CUDA graphs capture it), and traces under torch.compile\n"
     << "(a fake implementation gives the outputs' shapes).\n\"\"\"\n"
     << "import concurrent.futures\nimport ctypes\nimport json\nimport os\nimport threading\n\n"
     << "import torch\n\n"
     << "NAME = \"" << n << "\"\nKERNEL = \"" << spec.kernel << "\"\n"
     << "# (name, shape, dtype) of each input and output, in spec order.\n";
  bindings::writeOperandTable(os, "INPUTS", spec.inputs, torchDType);
  bindings::writeOperandTable(os, "OUTPUTS", spec.outputs, torchDType);
  os << "# Output -> the input it is written into (input_output_aliases).\nALIASES = {";
  for (auto [k, pair] : llvm::enumerate(spec.aliases))
    os << (k ? ", " : "") << pair.second << ": " << pair.first;
  os << "}\n";
  os << kRuntime << "\n\n"
     << "_library = torch.library.Library(\"pallasc\", \"FRAGMENT\")\n"
     << "_library.define(\"" << n << "(" << schemaArgs << ") -> " << schemaResult << "\")\n\n\n";
  // The CUDA implementation's fast path: the spec's checks written out for
  // this kernel (no loops, no messages); anything they decline takes _run,
  // which checks again and says what is wrong. Its locals are named apart
  // from the inputs.
  auto local = [&](std::string base) {
    while (llvm::any_of(spec.inputs, [&](const SpecOperand &in) { return in.name == base; }))
      base += "_";
    return base;
  };
  std::string build = local("build"), device = local("device");
  const SpecOperand *first = deviceArgument ? nullptr : &spec.inputs.front();
  os << "def _cuda(" << names << "):\n"
     << "    " << build << " = _cuda_build\n";
  if (deviceArgument)
    os << "    index = device.index\n"
       << "    if build is not None and index is not None:\n";
  else
    os << "    " << device << " = " << first->name << ".get_device()\n"
       << "    if (" << build << " is not None";
  for (const SpecOperand &in : spec.inputs) {
    os << "\n            and " << in.name << ".dtype is "
       << torchDType(bindings::numpyDType(in.dtype)) << " and " << in.name
       << ".shape == " << bindings::pythonTuple(in.shape) << " and " << in.name
       << ".is_contiguous()";
    if (&in != first)
      os << " and " << in.name << ".get_device() == " << device;
  }
  if (!deviceArgument)
    os << "):\n";
  // Outputs: empty_like of an input of the same shape and dtype (torch's
  // cheapest allocation from Python), else new_empty.
  std::string outs;
  for (auto [i, out] : llvm::enumerate(spec.outputs)) {
    if (std::optional<int64_t> in = spec.aliasedInput(i)) {
      pointers.push_back(spec.inputs[*in].name + ".data_ptr()");
      continue;
    }
    std::string var = local("out" + std::to_string(i));
    const SpecOperand *twin = nullptr;
    for (const SpecOperand &in : spec.inputs)
      if (!twin && in.shape == out.shape && in.dtype == out.dtype)
        twin = &in;
    if (twin)
      os << "        " << var << " = torch.empty_like(" << twin->name << ")\n";
    else if (deviceArgument)
      os << "        " << var << " = torch.empty(" << bindings::pythonTuple(out.shape)
         << ", dtype=" << torchDType(bindings::numpyDType(out.dtype)) << ", device=device)\n";
    else
      os << "        " << var << " = " << first->name << ".new_empty("
         << bindings::pythonTuple(out.shape)
         << ", dtype=" << torchDType(bindings::numpyDType(out.dtype)) << ")\n";
    pointers.push_back(var + ".data_ptr()");
    outs += (outs.empty() ? "" : ", ") + var;
  }
  // (A tuple of one needs its comma.)
  os << "        " << build << "(" << (deviceArgument ? "index" : device) << ", ("
     << llvm::join(pointers, ", ") << (pointers.size() == 1 ? ",))\n" : "))\n")
     << "        return " << (outs.empty() ? "None" : outs) << "\n"
     << "    return _run(" << names << ")\n\n\n"
     << "_library.impl(\"" << n << "\", _run, \"CPU\")\n\n\n"
     << "@torch.library.register_fake(\"pallasc::" << n << "\")\n"
     << "def _(" << names << "):\n"
     << "    return _result(_outputs(" << (deviceArgument ? "device" : first->name + ".device")
     << "))\n\n\n"
     << "_overload = torch.ops.pallasc." << n << ".default\n\n\n";
  if (deviceArgument)
    os << "def _backend_select(keyset, device):\n"
       << "    key = torch._C.DispatchKey.CUDA if device.type == \"cuda\" else "
          "torch._C.DispatchKey.CPU\n"
       << "    return _overload.redispatch(torch._C.DispatchKeySet(key), device)\n\n\n"
       << "_library.impl(\"" << n << "\", _backend_select, \"BackendSelect\", with_keyset=True)\n\n\n";
  os
     << "def " << n << "(" << params << ") -> " << result << ":\n"
     << "    \"\"\"torch.ops.pallasc." << n << " (its one overload, called directly)\"\"\"\n"
     << "    return _overload(" << names << ")\n";
  artifacts.push_back({n + "_torch.py", py, "torch"});
  if (kind == TargetKind::Cuda)
    artifacts.push_back({n + "_torch_op.cc", torchCompiledOpText(spec), "torch"});
  return success();
}
