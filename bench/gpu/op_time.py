#!/usr/bin/env python3
"""Time per call of a `--emit torch` op as a user sees it, on the GPU
machine: `python3 bench/gpu/op_time.py DIR` (a pallasc output directory
built for sm_90a with --emit torch). Random inputs of the op's declared
shapes and dtypes; the op allocates its outputs. Prints, for the op's
Python kernel and for its C++ kernel (NAME_torch_op.cc, built here into a
copy of DIR), the CPU time per call (20 calls enqueued, timed on the host
before the GPU has run them) and the time per call seen by CUDA events for
one call and for 20 back to back, beside the kernel's own time
(torch.profiler)."""
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
from torch.utils import cpp_extension


def random_input(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    return torch.randint(0, 8, shape, device="cuda", dtype=dtype)


def build_cc(src, name):
    """A copy of `src` with lib{name}_torch_op.so built from the op's C++
    kernel."""
    dst = tempfile.mkdtemp()
    shutil.copytree(src, dst, dirs_exist_ok=True)
    subprocess.run(["c++", "-std=c++17", "-O2", "-shared", "-fPIC", "-w", f"{name}_torch_op.cc",
                    "-I.", *[f"-I{p}" for p in cpp_extension.include_paths()],
                    "-I/usr/local/cuda/include", f"-L{cpp_extension.library_paths()[0]}",
                    "-ltorch", "-ltorch_cpu", "-ltorch_cuda", "-lc10", "-lc10_cuda", "-lcuda",
                    "-o", f"lib{name}_torch_op.so"], cwd=dst, check=True)
    return dst


def time_op(op, args, label):
    for _ in range(3):
        op(*args)
    torch.cuda.synchronize()
    cpu = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(20):
            op(*args)
        cpu.append((time.perf_counter() - t0) / 20)
        torch.cuda.synchronize()
    events = {}
    for n in (1, 20):
        ts = []
        for _ in range(5):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(n):
                op(*args)
            e.record()
            torch.cuda.synchronize()
            ts.append(s.elapsed_time(e) * 1e3 / n)
        events[n] = sorted(ts)[2]
    print(f"{label}: CPU {sorted(cpu)[2] * 1e6:.1f} us per call; per call {events[1]:.1f} us "
          f"(one), {events[20]:.1f} us (20 back to back)", flush=True)


def kernel_time(op, args):
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        op(*args)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            op(*args)
        torch.cuda.synchronize()
    times = [e.device_time for e in prof.events() if e.device_type.name == "CUDA"]
    return sorted(times)[len(times) // 2] if times else float("nan")


def main():
    directory = os.path.abspath(sys.argv[1])
    manifest = [f for f in os.listdir(directory) if f.endswith(".manifest.json")][0]
    name = json.load(open(os.path.join(directory, manifest)))["kernel"]
    sys.path.insert(0, directory)
    module = importlib.import_module(f"{name}_torch")
    args = [random_input(shape, dtype) for _, shape, dtype in module.INPUTS]
    op = getattr(torch.ops.pallasc, name)
    module.load(directory)
    time_op(op, args, f"{name} torch op ({module.cuda_kernel} kernel)")
    print(f"{name}: kernel time {kernel_time(op, args):.1f} us (torch.profiler, median)")
    # The C++ kernel registers itself once per process: a second process.
    if module.cuda_kernel == "python" and os.environ.get("OP_TIME_CC") != "done":
        compiled = build_cc(directory, name)
        subprocess.run([sys.executable, __file__, compiled], check=True,
                       env=dict(os.environ, OP_TIME_CC="done"))


if __name__ == "__main__":
    main()
