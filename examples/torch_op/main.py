"""Uses the kernel as the PyTorch op torch.ops.pallasc.swiglu: on the GPU
when there is one (the CUDA build), on the CPU (the host build), eagerly
and under torch.compile, and checks every element against torch.

usage: python3 main.py OUT   (OUT: the directory build.sh wrote)
"""
import os
import sys

import torch

out = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(out, "host"))
import swiglu_torch  # noqa: E402  (written by pallasc --emit torch)

swiglu_torch.load(os.path.join(out, "host"))
devices = ["cpu"]
if torch.cuda.is_available() and os.path.isdir(os.path.join(out, "cuda")):
    swiglu_torch.load(os.path.join(out, "cuda"))
    devices.append("cuda")


def mlp_gate(a, b):
    # The op composes with torch ops, and torch.compile traces through it.
    return torch.ops.pallasc.swiglu(a, b) * 2.0


failures = 0
for device in devices:
    g = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(512, 1024, generator=g).to(device)
    b = torch.randn(512, 1024, generator=g).to(device)
    want = (torch.nn.functional.silu(a.double()) * b.double() * 2.0).cpu()
    for how, fn in (("eager", mlp_gate), ("torch.compile", torch.compile(mlp_gate, fullgraph=True))):
        got = fn(a, b).cpu().double()
        err = (got - want).abs().max().item()
        ok = bool(torch.isfinite(got).all()) and err < 1e-5
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {device} {how}: max abs err {err:.1e}")
sys.exit(1 if failures else 0)
