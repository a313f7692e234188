#!/usr/bin/env python3
"""Digests of every artifact pallasc makes from the repository's kernels:
each kernel folder of examples/, ../shared/conformance and bench/kernels,
each of its specs, for each target (host, triton, sm_90a, sm_80, the
combined sm_90a,sm_80, tpu_v5e) with every extra artifact (--emit
mlir,llvm,torch,xla-ffi where the target takes them), one line per file:

  <kernel>:<spec> <target> <file> <sha256>

or `<kernel>:<spec> <target> refused <sha256 of the error text>`. Two
compilers that print the same lines make the same bytes: what a change
that should not alter the output (a refactoring) is checked with.

  tools/artifact-digests.py [--pallasc PATH] [--jobs N] [--plain] > digests.txt
  diff before.txt after.txt

--plain: no --emit, only the artifacts every build makes (for a change
that alters the --emit mlir dumps on purpose).
"""
import argparse
import concurrent.futures
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("PALLAS_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared"))
TARGETS = ("host", "triton", "sm_90a", "sm_80", "sm_90a,sm_80", "tpu_v5e")
EMIT = {"host": "mlir,llvm,torch,xla-ffi", "sm_90a": "mlir,llvm,torch,xla-ffi",
        "sm_80": "mlir,llvm", "sm_90a,sm_80": "mlir,llvm,torch", "triton": "mlir",
        "tpu_v5e": "mlir"}


def kernels():
    out = []
    for d in sorted(glob.glob(os.path.join(ROOT, "examples", "*")) +
                    glob.glob(os.path.join(SHARED, "conformance", "*")) +
                    glob.glob(os.path.join(ROOT, "bench", "kernels", "*"))):
        k = os.path.join(d, "kernel.mlir")
        if not os.path.exists(k):
            continue
        name = os.path.relpath(d, ROOT) if d.startswith(ROOT) else "conformance/" + os.path.basename(d)
        for spec in sorted(glob.glob(os.path.join(d, "spec*.json"))):
            out.append((name + ":" + os.path.basename(spec), k, spec))
    return out


def digest(data):
    return hashlib.sha256(data).hexdigest()


def run(pallasc, job, plain):
    label, kernel, spec, target = job
    with tempfile.TemporaryDirectory() as out:
        cmd = [pallasc, kernel, "--spec", spec, "--target", target, "-o", out]
        if not plain:
            cmd += ["--emit", EMIT[target]]
        p = subprocess.run(cmd, capture_output=True)
        if p.returncode != 0 and not plain:
            # Symbolic-size kernels refuse --emit torch/xla-ffi: retry without.
            cmd = cmd[:-2] + ["--emit", "mlir"]
            p = subprocess.run(cmd, capture_output=True)
        if p.returncode != 0:
            text = p.stderr.replace(kernel.encode(), b"KERNEL").replace(spec.encode(), b"SPEC")
            return [f"{label} {target} refused({p.returncode}) {digest(text)}"]
        lines = []
        for path in sorted(glob.glob(os.path.join(out, "**", "*"), recursive=True)):
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    lines.append(f"{label} {target} {os.path.relpath(path, out)} {digest(f.read())}")
        return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pallasc", default=os.path.join(
        os.environ.get("PALLAS_BUILD_DIR", os.path.join(ROOT, "build")), "bin", "pallasc"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--plain", action="store_true", help="no --emit")
    args = ap.parse_args()
    jobs = [(label, k, s, t) for label, k, s in kernels() for t in TARGETS]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for lines in pool.map(lambda j: run(args.pallasc, j, args.plain), jobs):
            for line in lines:
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
