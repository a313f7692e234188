#!/usr/bin/env python3
"""GPU check of symbolic sizes: the one compiled examples/matmul_symbolic
(bench/gpu/prepare.sh puts its host and sm_90a artifacts in
.device/gpu/matmul_symbolic/) launched through pallas-launch at several
(M, N, K): 1, non-multiples and multiples of its 64-element blocks. Each GPU
result is compared element by element with the host artifact's on the same
random non-zero inputs (at 4096^3, with NumPy in float64), and no NaN may be
left (the launcher poisons outputs); one odd size also runs under
compute-sanitizer memcheck. (sm_80 cubins do not run on the sm_90 machines
this check runs on.) The triton-target artifact's .ttir, compiled by
triton.compile, runs at the same sizes with the sizes as i32 arguments and
its grid from the manifest's expressions. Prints a table (also
to $OUT/check_symbolic.md); exits 1 if anything failed."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GPU_DIR = os.environ.get("PALLAS_GPU_DIR", os.path.join(ROOT, ".device", "gpu"))
LAUNCH = os.environ.get("PALLAS_LAUNCH", "/tmp/plb/bin/pallas-launch")
SIZES = [(1, 1, 1), (1, 70, 3), (63, 65, 130), (64, 64, 64), (200, 17, 300),
         (1000, 520, 77), (4096, 4096, 4096)]


def bf16(a):
    """float32 -> bf16 bits (round to nearest even) as uint16."""
    u = np.asarray(a, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def launch(art, inputs, out, tool=()):
    cmd = list(tool) + [LAUNCH, art, "--inputs", *inputs, "--outputs", out]
    return subprocess.run(cmd, capture_output=True, text=True)


def check_gemm(art, rng):
    """bench/kernels/gemm_f16_4096_symbolic (M x 4096 by 4096 x N, TMA with
    run-time bounds, a producer warpgroup) at several M, N (multiples of 16,
    as its spec asks, mostly not of its 128x256 tiles), against NumPy in
    float64; memcheck and racecheck at one size."""
    rows = []
    k = 4096
    with tempfile.TemporaryDirectory() as tmp:
        xs, ys, zs = (os.path.join(tmp, n + ".npy") for n in "xyz")
        for m, n in [(16, 16), (272, 48), (1008, 4000), (4096, 4096)]:
            x = rng.uniform(-1, 1, (m, k)).astype(np.float16)
            y = rng.uniform(-1, 1, (k, n)).astype(np.float16)
            np.save(xs, x)
            np.save(ys, y)
            r = launch(art, [xs, ys], zs)
            if r.returncode:
                rows.append((f"{m}x{n}x{k}", "gemm sm_90a", "FAILED: " + r.stderr.strip()[:200]))
                continue
            z = np.load(zs).astype(np.float64)
            ref = x.astype(np.float64) @ y.astype(np.float64)
            nan = int(np.isnan(z).sum())
            bad = int((np.abs(z - ref) > 2e-3 * np.abs(ref) + 0.05).sum())
            ok = nan == 0 and bad == 0 and z.shape == (m, n)
            rows.append((f"{m}x{n}x{k}", "gemm sm_90a (TMA)",
                         f"{'match' if ok else 'MISMATCH'}: {bad} off, {nan} NaN of {z.size}"))
        np.save(xs, rng.uniform(-1, 1, (272, k)).astype(np.float16))
        np.save(ys, rng.uniform(-1, 1, (k, 48)).astype(np.float16))
        for tool in ("memcheck", "racecheck"):
            r = launch(art, [xs, ys], zs, tool=("compute-sanitizer", "--tool", tool,
                                                "--error-exitcode", "9"))
            summary = [l for l in (r.stdout + r.stderr).splitlines() if "ERROR SUMMARY" in l or
                       "RACECHECK SUMMARY" in l]
            rows.append(("272x48x4096", f"gemm sm_90a {tool}",
                         "clean" if r.returncode == 0 else
                         "FAILED: " + (summary[0] if summary else r.stderr[-200:])))
    return rows


def check_triton(art, rng):
    import glob
    import json
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    m = json.load(open(glob.glob(os.path.join(art, "*.manifest.json"))[0]))
    L = m["launch"]
    cap = torch.cuda.get_device_capability()
    kern = triton.compile(glob.glob(os.path.join(art, "*.ttir"))[0],
                          target=GPUTarget("cuda", cap[0] * 10 + cap[1], 32),
                          options={"num_warps": L["num_warps"], "num_stages": L["num_stages"]})
    rows = []
    for mm, nn, kk in SIZES:
        sizes = {"M": mm, "N": nn, "K": kk}
        env = dict(sizes, cdiv=lambda a, b: -(-a // b), min=min, max=max)
        grid = tuple(g if isinstance(g, int) else eval(g, {"__builtins__": {}}, env)
                     for g in L["grid"])
        x = torch.empty(mm, kk).uniform_(0.01, 1).mul_(torch.randint(0, 2, (mm, kk)) * 2 - 1)
        y = torch.empty(kk, nn).uniform_(0.01, 1).mul_(torch.randint(0, 2, (kk, nn)) * 2 - 1)
        x, y = x.bfloat16().cuda(), y.bfloat16().cuda()
        z = torch.full((mm, nn), float("nan"), device="cuda")
        kern[grid](x, y, z, *[sizes[s["name"]] for s in m["sizes"]])
        ref = x.double() @ y.double()
        bad = int(((z.double() - ref).abs() > 1e-4 * (ref.abs().max() + 1)).sum())
        nan = int(z.isnan().sum())
        ok = bad == 0 and nan == 0
        rows.append((f"{mm}x{nn}x{kk}", "triton (triton.compile)",
                     f"{'match' if ok else 'MISMATCH'}: {bad} off, {nan} NaN of {z.numel()}"))
    return rows


def main():
    base = os.path.join(GPU_DIR, "matmul_symbolic")
    rows, failed = [], False
    rng = np.random.default_rng(3)
    with tempfile.TemporaryDirectory() as tmp:
        for m, n, k in SIZES:
            x = bf16(rng.uniform(0.01, 1, (m, k)) * rng.choice([-1, 1], (m, k)))
            y = bf16(rng.uniform(0.01, 1, (k, n)) * rng.choice([-1, 1], (k, n)))
            xs, ys = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
            np.save(xs, x)
            np.save(ys, y)
            outs = {}
            for t in ("host", "sm_90a"):
                if t == "host" and m * n * k > 1 << 30:
                    continue  # the host takes too long on 4096^3: float64 NumPy instead
                o = os.path.join(tmp, f"z_{t}.npy")
                r = launch(os.path.join(base, t), [xs, ys], o)
                if r.returncode:
                    rows.append((f"{m}x{n}x{k}", t, "FAILED: " + r.stderr.strip()[:200]))
                    failed = True
                    continue
                outs[t] = np.load(o)
            if "host" in outs:
                ref = outs["host"].astype(np.float64)
                tol = 1e-5
            else:
                f = lambda b: (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
                ref = f(x) @ f(y)
                tol = 1e-4
            mag = np.abs(ref).max() + 1
            for t in ("sm_90a",):
                if t not in outs:
                    continue
                z = outs[t].astype(np.float64)
                nan = int(np.isnan(z).sum())
                bad = int((np.abs(z - ref) > tol * mag).sum())
                ok = nan == 0 and bad == 0 and z.shape == (m, n)
                failed |= not ok
                rows.append((f"{m}x{n}x{k}", t, f"{'match' if ok else 'MISMATCH'}: "
                             f"{bad} off, {nan} NaN of {z.size}"))
        # Memcheck at an odd size: nothing read or written outside the arrays.
        np.save(os.path.join(tmp, "x.npy"), bf16(rng.uniform(-1, 1, (200, 130))))
        np.save(os.path.join(tmp, "y.npy"), bf16(rng.uniform(-1, 1, (130, 70))))
        for t in ("sm_90a",):
            r = launch(os.path.join(base, t), [os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")],
                       os.path.join(tmp, "z.npy"),
                       tool=("compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "9"))
            ok = r.returncode == 0
            failed |= not ok
            summary = [l for l in (r.stdout + r.stderr).splitlines() if "ERROR SUMMARY" in l]
            rows.append(("200x70x130", t + " memcheck", "clean" if ok else
                         "FAILED: " + (summary[0] if summary else r.stderr[-200:])))
    rows += check_triton(os.path.join(base, "triton"), rng)
    rows += check_gemm(os.path.join(GPU_DIR, "gemm_f16_4096_symbolic", "sm_90a"), rng)
    failed |= any("MISMATCH" in r[2] or "FAILED" in r[2] for r in rows)
    table = "| M x N x K | target | result |\n|---|---|---|\n" + "".join(
        f"| {a} | {b} | {c} |\n" for a, b, c in rows)
    print(table)
    if os.environ.get("OUT"):
        open(os.path.join(os.environ["OUT"], "check_symbolic.md"), "w").write(table)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
