"""Where the CPU time of one call of a pallasc torch op goes, on the GPU
machine with .device/launch/ carried: each step of the call timed alone
(median of batches of back-to-back calls, µs per call).

    python3 bench/gpu/launch/op_parts.py [KERNEL]
"""
import ctypes
import importlib
import os
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LAUNCH = os.path.join(ROOT, ".device", "launch")


def us(fn, batches=30, batch=200):
    times = []
    for _ in range(batches):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        times.append((time.perf_counter() - t0) / batch * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "vector_add_16"
    sys.path.insert(0, os.path.join(LAUNCH, name))
    m = importlib.import_module(name + "_torch")
    m.load(os.path.join(LAUNCH, name))
    args = [torch.randn(shape, dtype=dtype, device="cuda") for _, shape, dtype in m.INPUTS]
    _, oshape, odtype = m.OUTPUTS[0]
    op = getattr(torch.ops.pallasc, name)
    build = m._builds["cuda"]
    out = torch.empty(oshape, dtype=odtype, device="cuda")
    pointers = tuple(a.data_ptr() for a in args) + (out.data_ptr(),)
    op(*args)  # loads the kernel
    loaded = build.loaded[0]
    lib = torch.library.Library("pallasc_parts", "FRAGMENT")
    lib.define("noop(Tensor x) -> Tensor")
    lib.impl("noop", lambda x: x, "CUDA")
    x = args[0]
    rows = {
        "torch.ops.pallasc.NAME (whole call)": lambda: op(*args),
        "torch.ops.pallasc.NAME.default": lambda: op.default(*args),
        "module.NAME (the overload)": lambda: getattr(m, name)(*args),
        "module._cuda (no dispatcher)": lambda: m._cuda(*args),
        "dispatcher to a Python kernel (noop)": lambda: torch.ops.pallasc_parts.noop(x),
        "torch.add (for scale)": lambda: torch.add(x, x),
        "torch.empty": lambda: torch.empty(oshape, dtype=odtype, device=x.device),
        "x.new_empty": lambda: x.new_empty(oshape),
        "checks of one input": lambda: (x.dtype is torch.float32 and x.shape == oshape
                                        and x.is_contiguous()),
        "torch.empty_like(x)": lambda: torch.empty_like(x),
        "torch.empty(shape, dtype=, device=index)": lambda: torch.empty(oshape, dtype=odtype,
                                                                        device=0),
        "torch.empty(shape, dtype=, device='cuda')": lambda: torch.empty(oshape, dtype=odtype,
                                                                         device="cuda"),
        "x.device": lambda: x.device,
        "x.data_ptr()": lambda: x.data_ptr(),
        "_current_device()": lambda: m._current_device(),
        "_raw_stream(0)": lambda: m._raw_stream(0),
        "build(0, pointers) (parameters, launch)": lambda: build(0, pointers),
    }
    # The same launch through ctypes without argtypes: prebuilt ctypes
    # objects and plain ints, once with the GIL released (CDLL), once not
    # (PyDLL).
    function = loaded.function
    params = loaded.threads.parameters.params
    stream = ctypes.c_void_p(0)
    gx, gy, gz = loaded.grid
    for kind in ("CDLL", "PyDLL"):
        f = getattr(ctypes, kind)("libcuda.so.1").cuLaunchKernel
        rows[f"cuLaunchKernel, {kind}, no argtypes"] = (
            lambda f=f: f(function, gx, gy, gz, build.block, 1, 1, build.shared, stream,
                          params, None))
    # A native trampoline taking a prebuilt launch record and the stream:
    # what a compiled launcher would save over ctypes' eleven arguments.
    import subprocess
    import tempfile
    source = os.path.join(tempfile.mkdtemp(), "trampoline.c")
    open(source, "w").write("""
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
struct launch { launch_fn launch; void *function; unsigned grid[3], block, shared; void **params; };
int trampoline(const struct launch *l, void *stream) {
  return l->launch(l->function, l->grid[0], l->grid[1], l->grid[2], l->block, 1, 1, l->shared,
                   stream, l->params, 0);
}
""")
    library = source[:-2] + ".so"
    if subprocess.run(["cc", "-O2", "-shared", "-fPIC", source, "-o", library]).returncode == 0:
        class Launch(ctypes.Structure):
            _fields_ = [("launch", ctypes.c_void_p), ("function", ctypes.c_void_p),
                        ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint),
                        ("shared", ctypes.c_uint), ("params", ctypes.c_void_p)]
        record = Launch(ctypes.cast(ctypes.CDLL("libcuda.so.1").cuLaunchKernel, ctypes.c_void_p),
                        function, (ctypes.c_uint * 3)(gx, gy, gz), build.block, build.shared,
                        ctypes.cast(params, ctypes.c_void_p))
        trampoline = ctypes.PyDLL(library).trampoline
        ref = ctypes.byref(record)
        rows["trampoline(record, stream), prebuilt objects"] = lambda: trampoline(ref, stream)
        rows["trampoline(record, c_void_p(stream))"] = (
            lambda: trampoline(ref, ctypes.c_void_p(m._raw_stream(0))))
        typed = ctypes.PyDLL(library).trampoline
        typed.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        address = ctypes.addressof(record)
        rows["trampoline with argtypes (ints)"] = lambda: typed(address, m._raw_stream(0))
    # The dispatcher's autograd step for an op with no autograd kernel,
    # measured by letting it fall through on a second op.
    lib.define("noop_fallthrough(Tensor x) -> Tensor")
    lib.impl("noop_fallthrough", lambda x: x, "CUDA")
    lib.impl("noop_fallthrough", torch.library.fallthrough_kernel, "Autograd")
    rows["dispatcher, autograd falling through (noop)"] = (
        lambda: torch.ops.pallasc_parts.noop_fallthrough(x))
    for what, fn in rows.items():
        print(f"{us(fn):8.2f} us  {what}", flush=True)


if __name__ == "__main__":
    main()
