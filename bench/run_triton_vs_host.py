"""On a GPU machine: runs each case's Triton-compiled .ttir on the GPU and its
host artifact (through pallas-launch) on the CPU, on the same random
non-zero inputs, and compares every output element."""
import glob, json, os, subprocess, sys, tempfile, time
import numpy as np
import torch
import triton
from triton.backends.compiler import GPUTarget

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from dtypes import INTS, random_input, to_float, to_torch, from_torch, torch_dtype
cap = torch.cuda.get_device_capability()
target = GPUTarget("cuda", cap[0] * 10 + cap[1], 32)
results = []
for case in sorted(glob.glob(os.path.join(here, "cases", "*"))):
    name = os.path.basename(case)
    hm = json.load(open(glob.glob(os.path.join(case, "host", "*.manifest.json"))[0]))
    tm = json.load(open(glob.glob(os.path.join(case, "triton", "*.manifest.json"))[0]))
    rng = np.random.default_rng(7)
    params = hm["parameters"]
    ins = [p for p in params if p["role"] != "output"]
    outs = [p for p in params if p["role"] == "output"]
    arrays = []
    for p in ins:
        shape, dt = p["shape"], p["dtype"]
        if dt in INTS and name == "gather_oob":  # unique, some out of range
            a = (rng.permutation(110)[: int(np.prod(shape))] - 20).astype(np.int32).reshape(shape)
        elif dt in INTS and name in ("gather2d", "prefetch_rows"):  # mostly in range
            a = random_input(rng, shape, dt, (-2, 34 if name == "gather2d" else 16))
        else:
            a = random_input(rng, shape, dt)
        arrays.append(a)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, a in enumerate(arrays):
            files.append(f"{tmp}/in{i}.npy"); np.save(files[-1], a)
        ofiles = [f"{tmp}/out{i}.npy" for i in range(len(outs))]
        r = subprocess.run([os.path.join(here, "bin", "pallas-launch"), os.path.join(case, "host"),
                            "--inputs", *files, "--outputs", *ofiles], capture_output=True, text=True)
        if r.returncode:
            results.append((name, "host failed: " + r.stderr.strip())); continue
        host = [np.load(f) for f in ofiles]
    dargs = [to_torch(a, p["dtype"]) for a, p in zip(arrays, ins)]
    douts = []
    for p in outs:
        if "aliases" in p:
            douts.append(dargs[p["aliases"]])
        else:
            t = torch.empty(p["shape"], dtype=torch_dtype(p["dtype"]), device="cuda")
            t.fill_(-0x32323233 % 128 if p["dtype"] in INTS else float("nan"))
            douts.append(t)
    try:
        ttir = glob.glob(os.path.join(case, "triton", "*.ttir"))[0]
        k = triton.compile(ttir, target=target, options={"num_warps": tm["launch"]["num_warps"],
                                                        "num_stages": tm["launch"]["num_stages"]})
        grid = tuple(tm["launch"]["grid"])
        k[grid](*dargs, *douts)
        torch.cuda.synchronize()
        # Results of the first launch (later ones re-run in-place kernels).
        first = [d.clone() for d in douts]
        t0 = time.perf_counter()
        for _ in range(10):
            k[grid](*dargs, *douts)
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) / 10 * 1e3
    except Exception as e:
        results.append((name, f"triton failed: {type(e).__name__}: {str(e)[:200]}")); continue
    worst = 0.0; ok = True
    for p, h, d in zip(outs, host, first):
        g = to_float(from_torch(d, p["dtype"]), p["dtype"])
        hh = to_float(h, p["dtype"])
        if p["dtype"] in INTS:
            good = np.array_equal(g, hh)
        else:
            tol = (2e-2 if ("matmul" in name or p["dtype"] in ("bf16", "f16"))
                   else 1e-4 if name == "ops_tour" else 1e-5)
            if "matmul" in name:
                # TF32/bf16 dots: error measured against the output's scale.
                good = (not np.isnan(g).any() and
                        np.abs(g - hh).max() <= 1e-2 * np.abs(hh).max())
            else:
                good = not np.isnan(g).any() and np.allclose(g, hh, rtol=tol, atol=tol)
            worst = max(worst, float(np.nanmax(np.abs(g - hh))))
        ok &= bool(good)
    results.append((name, f"{'MATCH' if ok else 'MISMATCH'} max|diff| {worst:.3g}, {ms:.3f} ms/launch"))
print(f"device: {torch.cuda.get_device_name()}, triton {triton.__version__}, torch {torch.__version__}")
for n, r in results:
    print(f"{n:20s} {r}")
