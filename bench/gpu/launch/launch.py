"""Launch cost on the GPU machine, with .device/launch/ carried (made by
bench/gpu/prepare_launch.sh): per kernel (layernorm 2048x768, softmax
4096x1000, vector add of 2^16, 2^20, 2^24 f32), through each entry point
pallasc writes, beside torch's own op and a Triton kernel for the same
work, measured in the same run:

  cpu_us     CPU time per call: back-to-back calls in batches of 100, the
             synchronization between batches not timed (median batch; the
             entries' batches interleaved)
  e2e_us     time per call as a user sees it: CUDA events around the same
             batches (whichever of CPU and GPU is slower)
  kernel_us  the kernel's own time (torch.profiler, CUDA activity)

Checks, on random inputs, every output element against torch: eager,
under torch.compile(fullgraph=True), and replayed from a CUDA graph with
new inputs (after the timings, which they would slow); the op once with
its Python CUDA kernel and once with its C++ one (NAME_torch_op.cc, built
here with c++ against the torch installed). Then the C header (c_launch, built by prepare_launch.sh)
and the XLA FFI handler under jax.jit (built here with c++) beside a JAX
pallas_call of the same vector add. One JSON line per measurement and a
table; exit code 1 on a wrong result.

    python3 bench/gpu/launch/launch.py [--part torch|c|jax]
"""
import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import shutil
import time

import torch
from torch.utils import cpp_extension
import torch.nn.functional as F
import triton
import triton.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LAUNCH = os.path.join(ROOT, ".device", "launch")
# The builds with the torch op's C++ kernel built beside them.
COMPILED = os.path.join(tempfile.gettempdir(), "pallasc-launch-compiled")
failures = 0


# Triton kernels for the same work: one row (or 1024 elements) per program.
@triton.jit
def _triton_softmax(x, o, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + row * cols + offs, mask=offs < cols, other=-float("inf"))
    e = tl.exp(v - tl.max(v, 0))
    tl.store(o + row * cols + offs, e / tl.sum(e, 0), mask=offs < cols)


@triton.jit
def _triton_layernorm(x, w, b, o, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    v = tl.load(x + row * cols + offs, mask=m, other=0.0)
    mean = tl.sum(v, 0) / cols
    d = tl.where(m, v - mean, 0.0)
    rs = 1.0 / tl.sqrt(tl.sum(d * d, 0) / cols + eps)
    y = d * rs * tl.load(w + offs, mask=m) + tl.load(b + offs, mask=m)
    tl.store(o + row * cols + offs, y, mask=m)


@triton.jit
def _triton_add(x, y, o, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o + offs, tl.load(x + offs) + tl.load(y + offs))


def triton_softmax(x):
    o = torch.empty_like(x)
    _triton_softmax[(x.shape[0],)](x, o, x.shape[1], BLOCK=1024)
    return o


def triton_layernorm(x, w, b):
    o = torch.empty_like(x)
    _triton_layernorm[(x.shape[0],)](x, w, b, o, x.shape[1], 1e-5, BLOCK=1024)
    return o


def triton_add(x, y):
    o = torch.empty_like(x)
    _triton_add[(x.numel() // 1024,)](x, y, o, BLOCK=1024)
    return o


CASES = {
    "layernorm": (lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5), triton_layernorm),
    "softmax": (lambda x: torch.softmax(x, -1), triton_softmax),
    "vector_add_16": (torch.add, triton_add),
    "vector_add_20": (torch.add, triton_add),
    "vector_add_24": (torch.add, triton_add),
}


def report(row):
    print(json.dumps(row), flush=True)
    return row


def cpu_and_e2e_us(entries, args, rounds=30, batch=100):
    """Per entry: the median CPU µs per call over batches of back-to-back
    calls, and the CUDA-event µs per call over the same batches, the
    entries' batches interleaved so that drift in the machine's speed
    falls on all of them alike."""
    cpu = {who: [] for who, _ in entries}
    e2e = {who: [] for who, _ in entries}
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for who, fn in entries:
        for _ in range(20):
            fn(*args)
    for _ in range(rounds):
        for who, fn in entries:
            torch.cuda.synchronize()
            start.record()
            t0 = time.perf_counter()
            for _ in range(batch):
                fn(*args)
            t1 = time.perf_counter()
            end.record()
            end.synchronize()
            cpu[who].append((t1 - t0) / batch * 1e6)
            e2e[who].append(start.elapsed_time(end) * 1e3 / batch)
    return {who: (statistics.median(cpu[who]), statistics.median(e2e[who])) for who, _ in entries}


def kernel_us(fn, args, calls=50):
    from torch.profiler import ProfilerActivity, profile
    fn(*args)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn(*args)
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    # Kernels only (no memcpy/memset), the most frequent name: the op's kernel.
    names = {}
    for e in kernels:
        names.setdefault(e.name, []).append(e.device_time if hasattr(e, "device_time")
                                            else e.cuda_time)
    name = max(names, key=lambda n: len(names[n]))
    return statistics.median(names[name])


def close(got, want, what, tol):
    global failures
    got, want = got.double(), want.double()
    bad = not torch.isfinite(got).all().item()
    err = ((got - want).abs() / (1 + want.abs())).max().item()
    ok = not bad and err < tol
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: max rel err {err:.1e}"
          f"{' (unwritten elements)' if bad else ''}", flush=True)


def check(name, op, reference, args):
    want = reference(*[a.double() for a in args]).float()
    close(op(*args), want, f"{name} eager", 1e-4)
    compiled = torch.compile(lambda *a: op(*a) * 1, fullgraph=True)
    close(compiled(*args), want, f"{name} torch.compile(fullgraph=True)", 1e-4)
    # A CUDA graph of one call, replayed on new inputs copied in place.
    static = [a.clone() for a in args]
    op(*static)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = op(*static)
    fresh = [torch.randn_like(a) for a in args]
    for s, f in zip(static, fresh):
        s.copy_(f)
    graph.replay()
    torch.cuda.synchronize()
    close(out, reference(*[a.double() for a in fresh]).float(), f"{name} CUDA graph replay", 1e-4)
    # Bad inputs: the errors the Python kernel raises, from either kernel.
    global failures
    wide = torch.zeros(args[0].shape[:-1] + (args[0].shape[-1] * 2,), dtype=args[0].dtype,
                       device="cuda")[..., ::2]
    for error, bad, what in ((TypeError, [a.double() for a in args], "wrong dtype"),
                             (ValueError, [wide] + args[1:], "not contiguous")):
        try:
            op(*bad)
            got = "no error"
        except Exception as e:  # noqa: BLE001
            got = e
        ok = isinstance(got, error)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name} {what}: {type(got).__name__}: {got}",
              flush=True)


def check_tma_maps(builds):
    """The op over a GEMM whose code takes tensor maps: calls on new inputs
    each time, whose outputs alternate between torch's buffers, each
    compared with torch's matmul (the maps cached per array must view the
    arrays of the call)."""
    global failures
    name = "gemm_f16_4096"
    sys.path.insert(0, os.path.join(LAUNCH, name))
    module = importlib.import_module(name + "_torch")
    module.load(os.path.join(builds, name))
    op = getattr(torch.ops.pallasc, name)
    gen = torch.Generator(device="cuda").manual_seed(1)
    kept = []
    for call in range(4):
        x, y = [torch.randn(4096, 4096, dtype=torch.float16, device="cuda", generator=gen)
                for _ in range(2)]
        got = op(x, y)
        want = (x.float() @ y.float())
        err = ((got.float() - want).norm() / want.norm()).item()
        ok = torch.isfinite(got).all().item() and err < 1e-2
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name} call {call}: norm-wise rel err {err:.1e} "
              f"(output at {got.data_ptr():#x})", flush=True)
        if call == 1:
            kept.append(got)  # the next call's output takes another buffer


def build_compiled_ops():
    """Each case's build directory copied to COMPILED/<case>, with the op's
    C++ kernel (NAME_torch_op.cc) built there, in parallel. Returns the
    cases whose build failed."""
    include = [f"-I{p}" for p in cpp_extension.include_paths()]
    libs = cpp_extension.library_paths()[0]
    jobs = {}
    for name in list(CASES) + ["gemm_f16_4096"]:
        target = os.path.join(COMPILED, name)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(os.path.join(LAUNCH, name), target)
        jobs[name] = subprocess.Popen(
            ["c++", "-std=c++17", "-O2", "-shared", "-fPIC", "-w", f"{name}_torch_op.cc", "-I.",
             *include, "-I/usr/local/cuda/include", f"-L{libs}", "-ltorch", "-ltorch_cpu",
             "-ltorch_cuda", "-lc10", "-lc10_cuda", "-lcuda", "-o", f"lib{name}_torch_op.so"],
            cwd=target, stderr=subprocess.PIPE, text=True)
    failed = []
    for name, job in jobs.items():
        if job.wait():
            print(f"FAIL building {name}_torch_op.cc:\n{job.stderr.read()[-3000:]}", flush=True)
            failed.append(name)
    return failed


def torch_ops(kernel):
    """Times first, in a process nothing else has run in yet (torch.compile,
    CUDA graphs and the profiler leave work behind that slows every later
    call); kernel times next; the checks last."""
    global failures
    rows, cases = [], []
    builds = COMPILED if kernel == "compiled" else LAUNCH
    for name, (reference, triton_fn) in CASES.items():
        sys.path.insert(0, os.path.join(LAUNCH, name))
        module = importlib.import_module(name + "_torch")
        module.load(os.path.join(builds, name))
        if module.cuda_kernel != kernel:
            failures += 1
            print(f"FAIL {name}: the op's CUDA kernel is {module.cuda_kernel}, not {kernel}")
        op = getattr(torch.ops.pallasc, name)
        gen = torch.Generator(device="cuda").manual_seed(0)
        args = [torch.randn(shape, dtype=dtype, device="cuda", generator=gen)
                for _, shape, dtype in module.INPUTS]
        entries = [(f"pallasc torch op ({kernel} kernel)", op), ("torch", reference),
                   ("triton", triton_fn)]
        previous = os.path.join(LAUNCH, "old")
        if kernel == "python" and os.path.isdir(previous):
            # An earlier generator's module for the same build (op pallasc_old::NAME),
            # where one was put there for a before/after comparison.
            sys.path.insert(0, previous)
            importlib.import_module(name + "_torch_old").load(os.path.join(LAUNCH, name))
            entries.append(("previous torch op", getattr(torch.ops.pallasc_old, name)))
        cases.append((name, op, reference, triton_fn, args, entries))
    for name, op, reference, triton_fn, args, entries in cases:
        for who, (cpu, e2e) in cpu_and_e2e_us(entries, args).items():
            rows.append({"kernel": name, "entry": who, "cpu_us": round(cpu, 2),
                         "e2e_us": round(e2e, 2)})
    for row in rows:
        name, who = row["kernel"], row["entry"]
        case = next(c for c in cases if c[0] == name)
        fn = dict(case[5])[who]
        row["kernel_us"] = round(kernel_us(fn, case[4]), 2)
        report(row)
    check_tma_maps(builds)
    for name, op, reference, triton_fn, args, entries in cases:
        check(name, op, reference, args)
        close(triton_fn(*args), reference(*[a.double() for a in args]).float(),
              f"{name} Triton anchor", 1e-4)
    return rows


def c_headers():
    global failures
    contexts = os.path.join(LAUNCH, "vector_add_16", "c_contexts")
    out = subprocess.run([contexts], capture_output=True, text=True)
    failures += out.returncode != 0
    print(f"{'ok  ' if out.returncode == 0 else 'FAIL'} c_contexts: "
          f"{(out.stdout + out.stderr).strip()}", flush=True)
    rows = []
    for name in sorted(os.listdir(LAUNCH)):
        binary = os.path.join(LAUNCH, name, "c_launch")
        if os.path.exists(binary):
            out = subprocess.run([binary], capture_output=True, text=True)
            if out.returncode:
                failures += 1
                print(f"FAIL {name} c_launch: {out.stderr}")
                continue
            rows.append(report(json.loads(out.stdout)))
    return rows


def xla_ffi():
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    rows = []
    include = jax.ffi.include_dir()
    name = "vector_add_16"
    directory = os.path.join(LAUNCH, name)
    lib = os.path.join(tempfile.mkdtemp(), f"lib{name}_xla_ffi.so")
    subprocess.run(["c++", "-std=c++17", "-O2", "-shared", "-fPIC", "-w",
                    os.path.join(directory, f"{name}_xla_ffi.cc"), "-I", directory, "-I", include,
                    "-I/usr/local/cuda/include", "-lcuda", "-o", lib], check=True)
    sys.path.insert(0, directory)
    module = importlib.import_module(name + "_xla_ffi")
    module.register(lib)

    def add_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] + y_ref[...]

    n = 1 << 16
    pallas_add = pl.pallas_call(
        add_kernel, grid=(n // 1024,),
        in_specs=[pl.BlockSpec((1024,), lambda i: (i,))] * 2,
        out_specs=pl.BlockSpec((1024,), lambda i: (i,)),
        out_shape=jax.ShapeDtypeStruct((n,), jnp.float32))
    x = jax.random.normal(jax.random.key(0), (n,), jnp.float32)
    y = jax.random.normal(jax.random.key(1), (n,), jnp.float32)
    ours, theirs = jax.jit(module.vector_add_16), jax.jit(pallas_add)
    global failures
    for who, fn in (("pallasc xla ffi", ours), ("jax pallas_call", theirs),
                    ("jax x + y", jax.jit(lambda a, b: a + b))):
        got = fn(x, y)
        ok = bool(jnp.all(got == x + y))
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {who} {name}: every element", flush=True)
        times = []
        for _ in range(30):
            fn(x, y).block_until_ready()
            t0 = time.perf_counter()
            for _ in range(100):
                r = fn(x, y)
            times.append((time.perf_counter() - t0) / 100 * 1e6)
            r.block_until_ready()
        rows.append(report({"kernel": name, "entry": who, "cpu_us": round(statistics.median(times), 2),
                            "jax": jax.__version__}))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=["torch", "c", "jax", "all"], default="all",
                        help="all: each part in a process of its own")
    parser.add_argument("--kernel", choices=["python", "compiled"], default="python",
                        help="the torch op's CUDA kernel (compiled: built by --part all)")
    options = parser.parse_args()
    if options.part == "all":
        status = 1 if build_compiled_ops() else 0
        for part in (["torch", "--kernel", "python"], ["torch", "--kernel", "compiled"], ["c"],
                     ["jax"]):
            status |= subprocess.run([sys.executable, __file__, "--part", *part]).returncode
        return status
    print(open(os.path.join(LAUNCH, "COMPILER")).read().strip().replace("\n", " "),
          torch.__version__, torch.cuda.get_device_name(), flush=True)
    if options.part == "torch":
        torch_ops(options.kernel)
    else:
        {"c": c_headers, "jax": xla_ffi}[options.part]()
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
