#!/usr/bin/env python3
"""Differential test of pallasc on generated kernels (kernelgen.py).

For each kernel: runs it on the host target (pallas-run) and compares every
output element with the kernel's NumPy reference; compiles it for sm_80 +
sm_90a (ptxas), for triton (then `triton.compile` of the .ttir) and for
tpu_v5e (then jaxlib verifies the Mosaic module). A target may refuse a
kernel only with a deliberate, located error (`kernel.mlir:L:C: error:` or
a spec path) that is not an internal one; a crash, an internal error, a
verifier failure of generated IR or a consumer rejecting the artifact fails
the kernel.

usage: run.py [--seed S] [--count N] [--jobs J] [--keep DIR] [--only NAME]
              [--results FILE]
Prints one line per kernel and a summary; exits 1 if any kernel failed.
"""
import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kernelgen  # noqa: E402

TARGETS = ["host", "sm_90a,sm_80", "triton", "tpu_v5e"]

# Signs that a failure is ours, not a deliberate limit: generated IR that
# does not verify, a lowering that did not finish, a crash.
INTERNAL = re.compile(
    r"internal error|PLEASE submit a bug report|Assertion|Stack dump|"
    r"'(scf|nvvm|llvm|tt|ttg|gpu|memref|vector|arith|math|func|bufferization|"
    r"tensor|linalg|cf|pallas_gpu|nvgpu)\.[a-z_.]+' op|failed to legalize|"
    r"Yield operand|does not dominate|LLVM ERROR|ptxas.*error|"
    r"failed to materialize|unrealized_conversion_cast|cannot be converted to LLVM IR")
LOCATED = re.compile(r"(kernel\.mlir|spec\.json):\d+:\d+: error: ")


def classify(rc, stderr):
    """'ok', 'refused' (a deliberate, located error) or 'bug'."""
    if rc == 0:
        return "ok", ""
    first = next((l for l in stderr.splitlines() if "error:" in l), stderr.strip()[:300])
    if rc != 1 or INTERNAL.search(stderr) or not LOCATED.search(stderr):
        return "bug", first or "exit %d" % rc
    return "refused", first


def compare(case, index, got, want):
    """None, or what is wrong with output `index`."""
    dtype = case.outputs[index]["dtype"]
    got = kernelgen.decode(got, dtype)
    want = np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, want %s" % (got.shape, want.shape)
    if not kernelgen.is_float(dtype):
        bad = got.astype(np.int64) != want.astype(np.int64)
        if bad.any():
            i = tuple(np.argwhere(bad)[0])
            return "%d of %d elements differ; at %s: %s, want %s" % (
                bad.sum(), bad.size, i, got[i], want[i])
        return None
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    if np.isnan(w).any():
        return "reference left %d elements unwritten (generator bug)" % np.isnan(w).sum()
    if np.isnan(g).any():
        return "%d of %d elements unwritten or NaN" % (np.isnan(g).sum(), g.size)
    rtol, atol = kernelgen.tolerance(case, index, dtype)
    scale = max(1.0, float(np.abs(w).max()))
    bad = np.abs(g - w) > atol * scale + rtol * np.abs(w)
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        return "%d of %d elements off (rtol %.1e, atol %.1e); at %s: %r, want %r" % (
            bad.sum(), bad.size, rtol, atol, i, g[i], w[i])
    return None


_triton = None


def triton_compile(directory):
    global _triton
    if _triton is None:
        import triton
        from triton.backends.compiler import GPUTarget
        _triton = (triton, GPUTarget)
    triton, GPUTarget = _triton
    manifest = json.load(open(os.path.join(directory, "k.manifest.json")))
    launch = manifest["launch"]
    try:
        k = triton.compile(os.path.join(directory, "k.ttir"),
                           target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": launch["num_warps"],
                                    "num_stages": launch["num_stages"]})
        if not k.asm.get("cubin"):
            return "no cubin"
    except Exception as e:  # Triton reports its compile errors as exceptions
        msg = str(e).strip().splitlines()
        return "triton.compile: " + next((l for l in msg if "error" in l), msg[0] if msg else "?")
    return None


_cases = {}


def check_case(job):
    # Cases hold closures, which do not pickle: each worker generates the
    # same list from the seed and takes its case by index.
    seed, count, index, bindir, workdir, targets = job
    if (seed, count) not in _cases:
        _cases[(seed, count)] = list(kernelgen.generate(seed, count))
    case = _cases[(seed, count)][index]
    d = os.path.join(workdir, case.name)
    os.makedirs(d, exist_ok=True)
    kpath, spath = os.path.join(d, "kernel.mlir"), os.path.join(d, "spec.json")
    spec = dict(case.spec)
    spec["name"] = "k"
    with open(kpath, "w") as f:
        f.write(case.mlir)
    with open(spath, "w") as f:
        json.dump(spec, f, indent=1)
    result = {"name": case.name, "family": case.family,
              "op_dtypes": kernelgen.op_dtypes(case.mlir),
              "dtypes": sorted(case.features["dtypes"]), "targets": {}, "problems": []}
    rng = np.random.default_rng([ord(c) for c in case.name])
    inputs = case.make_inputs(rng)
    for t in targets:
        if t == "host":
            ins = []
            for i, (a, p) in enumerate(zip(inputs, case.spec["inputs"])):
                ins.append(os.path.join(d, "in%d.npy" % i))
                np.save(ins[-1], kernelgen.encode(a, p["dtype"]))
            outs = [os.path.join(d, "out%d.npy" % i) for i in range(len(case.outputs))]
            run = subprocess.run([os.path.join(bindir, "pallas-run"), kpath, "--spec", spath,
                                  "--inputs", *ins, "--outputs", *outs],
                                 capture_output=True, text=True, timeout=300)
            status, why = classify(run.returncode, run.stderr)
            if status == "ok":
                # What the GPU script (gpu.py) compares the device's outputs with.
                with open(os.path.join(d, "check.json"), "w") as f:
                    json.dump({"outputs": [
                        {"dtype": p["dtype"], "tolerance": kernelgen.tolerance(case, i, p["dtype"])}
                        for i, p in enumerate(case.outputs)]}, f)
                want = case.reference(inputs)
                for i, w in enumerate(want):
                    bad = compare(case, i, np.load(outs[i]), w)
                    if bad:
                        status, why = "wrong", "output %d: %s" % (i, bad)
                        break
            elif status == "refused":
                status = "bug"  # the host target is the reference: it runs everything
        else:
            out = os.path.join(d, t.split(",")[0])
            run = subprocess.run([os.path.join(bindir, "pallasc"), kpath, "--spec", spath,
                                  "-t", t, "-o", out], capture_output=True, text=True,
                                 timeout=300)
            status, why = classify(run.returncode, run.stderr)
            if status == "ok" and t == "triton":
                bad = triton_compile(out)
                if bad:
                    status, why = "bug", bad
        result["targets"][t] = status
        if status in ("bug", "wrong"):
            result["problems"].append("%s: %s: %s" % (t, status, why))
        elif status == "refused":
            result.setdefault("refusals", {})[t] = why
    return result


def mosaic_verify(workdir, results):
    """jaxlib verifies every Mosaic module compiled, in one process."""
    dirs = [os.path.join(workdir, r["name"], "tpu_v5e") for r in results
            if r["targets"].get("tpu_v5e") == "ok"]
    if not dirs:
        return
    run = subprocess.run([sys.executable, os.path.join(ROOT, "test", "Mosaic", "check_mosaic.py"),
                          *dirs], capture_output=True, text=True)
    failed = {line.split(":")[0] for line in run.stdout.splitlines() if "FAILED" in line}
    for r in results:
        d = os.path.join(workdir, r["name"], "tpu_v5e")
        if d in failed:
            r["targets"]["tpu_v5e"] = "bug"
            line = next(l for l in run.stdout.splitlines() if l.startswith(d))
            r["problems"].append("tpu_v5e: jaxlib: " + line.split("FAILED:", 1)[1].strip())
    if run.returncode != 0 and not failed:
        for r in results:
            if r["targets"].get("tpu_v5e") == "ok":
                r["targets"]["tpu_v5e"] = "bug"
                r["problems"].append("tpu_v5e: check_mosaic.py: " + run.stderr[-300:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--bin", default=os.path.join(
        os.environ.get("PALLAS_BUILD_DIR", os.path.join(ROOT, "build")), "bin"))
    parser.add_argument("--keep", help="write the kernels and artifacts here")
    parser.add_argument("--only", help="run only the kernels whose name matches this regex")
    parser.add_argument("--targets", default=",".join(t.replace(",", "+") for t in TARGETS))
    parser.add_argument("--results", help="write per-kernel results (JSON) here")
    args = parser.parse_args()
    targets = [t.replace("+", ",") for t in args.targets.split(",")]
    cases = list(kernelgen.generate(args.seed, args.count))
    workdir = args.keep or tempfile.mkdtemp(prefix="pallas-differential-")
    jobs = [(args.seed, args.count, i, args.bin, workdir, targets)
            for i, c in enumerate(cases) if not args.only or re.search(args.only, c.name)]
    with multiprocessing.Pool(args.jobs) as pool:
        results = list(pool.imap(check_case, jobs))
    if "tpu_v5e" in targets:
        mosaic_verify(workdir, results)
    failed = 0
    counts = {}
    for r in results:
        for t, s in r["targets"].items():
            counts.setdefault(t, {}).setdefault(s, 0)
            counts[t][s] += 1
        if r["problems"]:
            failed += 1
            print("FAIL %s (%s): %s" % (r["name"], ", ".join(r["dtypes"]), "; ".join(r["problems"])))
        else:
            print("PASS %s %s" % (r["name"], " ".join("%s=%s" % kv for kv in r["targets"].items())))
    for t, c in counts.items():
        print("target %s: %s" % (t, ", ".join("%s %d" % kv for kv in sorted(c.items()))))
    print("%d kernels, %d failed (seed %d)" % (len(results), failed, args.seed))
    if args.results:
        with open(args.results, "w") as f:
            json.dump({"seed": args.seed, "results": results}, f, indent=1, sort_keys=True)
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
