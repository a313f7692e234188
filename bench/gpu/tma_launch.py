#!/usr/bin/env python3
"""On the GPU machine (bench/gpu/run.sh): a kernel compiled with --tma
(examples/flash_attention, in .device/gpu/tma/flash_attention/, which
prepare.sh wrote) through the launch paths other than pallas-launch (which
check.py covers): its PyTorch custom op (--emit torch) and its C header,
compiled here into a small shared library and called through ctypes. Each
must build the CUtensorMaps the manifest lists and match a float64
reference on every element. Exit code 1 on any failure."""
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
ART = os.path.join(ROOT, ".device", "gpu", "tma", "flash_attention")
failures = 0


def check(got, want, what):
    global failures
    got = got.float().cpu().double()
    if not torch.isfinite(got).all():
        print(f"FAIL {what}: an output element was not written")
        failures += 1
        return
    err = ((got - want).norm() / want.norm()).item()
    ok = err < 1e-2  # bf16 inputs and P
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: norm-wise rel err {err:.1e}")


manifest = json.load(open(os.path.join(ART, "flash_attention.manifest.json")))
maps = manifest["launch"].get("tensor_maps", {}).get("sm_90a", [])
print(f"sm_90a code takes {len(maps)} tensor map(s)")
if not maps:
    print("FAIL: the artifact was not compiled with --tma")
    sys.exit(1)

gen = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(4, 512, 128, generator=gen).to(torch.bfloat16) for _ in range(3))
s = q.double() @ k.double().transpose(1, 2) / math.sqrt(128)
want = torch.softmax(s, dim=-1) @ v.double()
qc, kc, vc = q.cuda(), k.cuda(), v.cuda()

# The torch op.
sys.path.insert(0, ART)
m = importlib.import_module("flash_attention_torch")
m.load(ART)
check(torch.ops.pallasc.flash_attention(qc, kc, vc), want, "torch op (cuda)")

# The C header.
with tempfile.TemporaryDirectory() as tmp:
    shim = os.path.join(tmp, "shim.c")
    with open(shim, "w") as f:
        f.write('#include "flash_attention.h"\n'
                "int run(void *stream, CUdeviceptr q, CUdeviceptr k, CUdeviceptr v, CUdeviceptr o) {\n"
                "  return (int)flash_attention((CUstream)stream, q, k, v, o);\n}\n")
    lib = os.path.join(tmp, "shim.so")
    subprocess.run(["gcc", "-std=c99", "-shared", "-fPIC", "-I", ART, "-I", "/usr/local/cuda/include",
                    shim, "-o", lib, "-L/usr/local/cuda/lib64/stubs", "-lcuda", "-lpthread"],
                   check=True)
    run = ctypes.CDLL(lib).run
    run.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 4
    o = torch.full_like(qc, float("nan"))
    r = run(torch.cuda.current_stream().cuda_stream, qc.data_ptr(), kc.data_ptr(), vc.data_ptr(),
            o.data_ptr())
    torch.cuda.synchronize()
    if r:
        print(f"FAIL C header: CUresult {r}")
        failures += 1
    else:
        check(o, want, "C header")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
