#!/usr/bin/env python3
"""On a GPU machine: runs the kernels run.py kept (`run.py --keep DIR`) on
the GPU, through their sm_90a cubins (pallas-launch, the CUDA header's
loader) and through Triton (`triton.compile` of their .ttir, launched with
torch tensors), on the inputs run.py made, and compares every output
element with the host target's outputs, which run.py checked against the
NumPy references. Outputs start as NaN / a sentinel, so an element never
written shows.

usage: gpu.py DIR [--launcher PATH]
Prints one line per kernel and a summary; exits 1 if any comparison failed.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
from dtypes import INTS, to_float, to_torch, from_torch, torch_dtype  # noqa: E402


def compare(got, want, out):
    dtype = out["dtype"]
    g, w = to_float(got, dtype), to_float(want, dtype)
    if g.shape != w.shape:
        return "shape %s, want %s" % (g.shape, w.shape)
    if dtype in INTS:
        bad = g != w
    else:
        if np.isnan(g).any():
            return "%d element(s) NaN / never written" % np.isnan(g).sum()
        rtol, atol = out["tolerance"]
        # The host and the GPU each sit within the tolerance of the exact result.
        scale = max(1.0, float(np.abs(w).max()))
        bad = np.abs(g - w) > 2 * (atol * scale + rtol * np.abs(w))
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        return "%d of %d elements differ; at %s: %r, host %r" % (bad.sum(), bad.size, i, g[i], w[i])
    return None


def run_cubin(launcher, case, ins, outs):
    art = os.path.join(case, "sm_90a")
    if not os.path.isdir(art):
        return "not compiled"
    files = [os.path.join(case, "gpu_cubin%d.npy" % i) for i in range(len(outs))]
    r = subprocess.run([launcher, art, "--inputs", *ins, "--outputs", *files],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        return "FAIL launch: " + r.stderr.strip()[:200]
    for i, (f, o) in enumerate(zip(files, outs)):
        bad = compare(np.load(f), np.load(os.path.join(case, "out%d.npy" % i)), o)
        if bad:
            return "FAIL output %d: %s" % (i, bad)
    return "ok"


def run_triton(case, ins, outs, target):
    import torch
    import triton
    art = os.path.join(case, "triton")
    if not os.path.isdir(art):
        return "not compiled"
    manifest = json.load(open(os.path.join(art, "k.manifest.json")))
    launch = manifest["launch"]
    try:
        k = triton.compile(os.path.join(art, "k.ttir"), target=target,
                           options={"num_warps": launch["num_warps"],
                                    "num_stages": launch["num_stages"]})
    except Exception as e:
        return "FAIL triton.compile: " + str(e).strip().splitlines()[0][:200]
    params = manifest["parameters"]
    inp = [p for p in params if p["role"] != "output"]
    outp = [p for p in params if p["role"] == "output"]
    dargs = [to_torch(np.load(f), p["dtype"]) for f, p in zip(ins, inp)]
    douts = []
    for p in outp:
        t = torch.empty(p["shape"], dtype=torch_dtype(p["dtype"]), device="cuda")
        t.fill_(-51 if p["dtype"] in INTS else float("nan"))
        douts.append(t)
    k[tuple(launch["grid"])](*dargs, *douts)
    torch.cuda.synchronize()
    for i, (t, o) in enumerate(zip(douts, outs)):
        bad = compare(from_torch(t, o["dtype"]), np.load(os.path.join(case, "out%d.npy" % i)), o)
        if bad:
            return "FAIL output %d: %s" % (i, bad)
    return "ok"


def warm_triton_cache(case):
    """Compiles one case's .ttir in a worker: Triton's on-disk cache then
    hands the main process the result at once."""
    import triton
    from triton.backends.compiler import GPUTarget
    art = os.path.join(case, "triton")
    if not os.path.isdir(art):
        return
    launch = json.load(open(os.path.join(art, "k.manifest.json")))["launch"]
    cap = warm_triton_cache.capability
    try:
        triton.compile(os.path.join(art, "k.ttir"), target=GPUTarget("cuda", cap, 32),
                       options={"num_warps": launch["num_warps"],
                                "num_stages": launch["num_stages"]})
    except Exception:
        pass  # reported by the main process


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--launcher", default=os.environ.get("PALLAS_LAUNCH", "pallas-launch"))
    args = parser.parse_args()
    cases = sorted(glob.glob(os.path.join(args.dir, "*", "check.json")))
    cases = [os.path.dirname(c) for c in cases]
    # Compile every .ttir in parallel first, before CUDA is initialised in
    # this process (forked workers must not inherit a CUDA context).
    smi = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                         capture_output=True, text=True)
    major, minor = smi.stdout.strip().splitlines()[0].split(".")
    warm_triton_cache.capability = int(major) * 10 + int(minor)
    import multiprocessing
    with multiprocessing.get_context("fork").Pool(min(16, os.cpu_count() or 1)) as pool:
        pool.map(warm_triton_cache, cases)
    import torch
    from triton.backends.compiler import GPUTarget
    cap = torch.cuda.get_device_capability()
    target = GPUTarget("cuda", cap[0] * 10 + cap[1], 32)
    print("device: %s" % torch.cuda.get_device_name())
    failed, counts = 0, {}
    for case in cases:
        check = os.path.join(case, "check.json")
        if not os.path.exists(check):
            continue
        outs = json.load(open(check))["outputs"]
        ins = sorted(glob.glob(os.path.join(case, "in*.npy")))
        res = {"cubin": run_cubin(args.launcher, case, ins, outs),
               "triton": run_triton(case, ins, outs, target)}
        for k, v in res.items():
            key = (k, v.split(":")[0])
            counts[key] = counts.get(key, 0) + 1
        bad = any(v.startswith("FAIL") for v in res.values())
        failed += bad
        print("%s %s cubin=%s triton=%s" % ("FAIL" if bad else "PASS", os.path.basename(case),
                                           res["cubin"], res["triton"]))
    for (k, v), n in sorted(counts.items()):
        print("%s %s: %d" % (k, v, n))
    print("%d kernels failed on the GPU" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
