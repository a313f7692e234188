#!/usr/bin/env python3
"""On the GPU machine (bench/gpu/run.sh): kernels compiled with --tma
(examples/flash_attention, examples/matmul_cluster, whose persistent
CTAs run in clusters of two, and examples/flash_attention_f8, whose K is
read through a 5-D view that permutes its rows; in
.device/gpu/tma/<kernel>/, which prepare.sh wrote) through the launch
paths other than pallas-launch (which check.py covers): their PyTorch
custom ops (--emit torch) and their C headers, compiled here into a small
shared library and called through ctypes. Each
must build the CUtensorMaps the manifest lists (and launch the clusters it
names) and match a float64 reference on every element. Exit code 1 on any
failure."""
import ctypes
import importlib
import json
import math
import os
import subprocess
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = 0


def check(got, want, what, tol=1e-2):
    global failures
    got = got.float().cpu().double()
    if not torch.isfinite(got).all():
        print(f"FAIL {what}: an output element was not written")
        failures += 1
        return
    err = ((got - want).norm() / want.norm()).item()
    ok = err < tol  # bf16 inputs (and P); f8 P: 4e-2
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: norm-wise rel err {err:.1e}")


def launch_paths(name, inputs, out_shape, want, out_dtype=None, tol=1e-2):
    """`name`'s torch op and C header on `inputs` (CPU tensors); the output
    of `out_dtype` (default: the first input's)."""
    global failures
    art = os.path.join(ROOT, ".device", "gpu", "tma", name)
    launch = json.load(open(os.path.join(art, name + ".manifest.json")))["launch"]
    maps = launch.get("tensor_maps", {}).get("sm_90a", [])
    print(f"{name}: sm_90a code takes {len(maps)} tensor map(s), clusters "
          f"{launch.get('cluster', [1, 1, 1])}, persistent {launch.get('persistent', False)}")
    if not maps:
        print(f"FAIL {name}: the artifact was not compiled with --tma")
        failures += 1
        return
    cuda_in = [t.cuda() for t in inputs]
    sys.path.insert(0, art)
    m = importlib.import_module(name + "_torch")
    m.load(art)
    check(getattr(torch.ops.pallasc, name)(*cuda_in), want, f"{name} torch op (cuda)", tol)
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, "shim.c")
        params = ", ".join(f"CUdeviceptr a{i}" for i in range(len(inputs) + 1))
        args = ", ".join(f"a{i}" for i in range(len(inputs) + 1))
        with open(shim, "w") as f:
            f.write(f'#include "{name}.h"\n'
                    f"int run(void *stream, {params}) {{\n"
                    f"  return (int){name}((CUstream)stream, {args});\n}}\n")
        lib = os.path.join(tmp, "shim.so")
        subprocess.run(["gcc", "-std=c99", "-shared", "-fPIC", "-I", art, "-I",
                        "/usr/local/cuda/include", shim, "-o", lib,
                        "-L/usr/local/cuda/lib64/stubs", "-lcuda", "-lpthread"], check=True)
        run = ctypes.CDLL(lib).run
        run.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * (len(inputs) + 1)
        o = torch.full(out_shape, float("nan"), device="cuda", dtype=out_dtype or inputs[0].dtype)
        r = run(torch.cuda.current_stream().cuda_stream, *[t.data_ptr() for t in cuda_in],
                o.data_ptr())
        torch.cuda.synchronize()
        if r:
            print(f"FAIL {name} C header: CUresult {r}")
            failures += 1
        else:
            check(o, want, f"{name} C header", tol)


gen = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(4, 512, 128, generator=gen).to(torch.bfloat16) for _ in range(3))
s = q.double() @ k.double().transpose(1, 2) / math.sqrt(128)
launch_paths("flash_attention", [q, k, v], q.shape, torch.softmax(s, dim=-1) @ v.double())

x = torch.randn(4096, 512, generator=gen).to(torch.bfloat16)
y = torch.randn(512, 2048, generator=gen).to(torch.bfloat16)
launch_paths("matmul_cluster", [x, y], (4096, 2048), x.double() @ y.double())

# fp8 attention as FA3 takes it (per-tensor descales, V^T), bf16 out:
# against float64 on the dequantized values (P is rounded to f8).
f8 = torch.float8_e4m3fn
descale = torch.tensor([0.9, 1.7, 1.3])
q8, k8, v8 = (torch.randn(2, 512, 128, generator=gen).to(f8) for _ in range(3))
qd, kd, vd = (t.double() * d.item() for t, d in zip((q8, k8, v8), descale))
s8 = qd @ kd.transpose(1, 2) / math.sqrt(128)
launch_paths("flash_attention_f8", [descale, q8, k8, v8.transpose(1, 2).contiguous()], q8.shape,
             torch.softmax(s8, dim=-1) @ vd, out_dtype=torch.bfloat16, tol=4e-2)

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
