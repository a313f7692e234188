#!/usr/bin/env python3
"""Compile-time survey: compiles every kernel of the repository (examples,
conformance, benchmark kernels, the whole-driver fuzz corpus) and, with
--corpus, every input of a fuzz run's corpus, for each target with machine
code (host, sm_90a, sm_80, triton, tpu_v5e), one pallasc per kernel and
target, and reports the slowest. A compile that runs past --limit seconds
(default 10) is killed and listed; so is any exit other than 0 (compiled)
or 1 (refused with an error), or an error without a location.

  tools/compile-times.py [--corpus DIR]... [--jobs N] [--limit S]

Fuzz corpus inputs are a kernel, a line "//--- spec.json" and the spec
(test/fuzz/README.md)."""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("PALLAS_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared"))
TARGETS = ("host", "sm_90a", "sm_80", "triton", "tpu_v5e")
SEPARATOR = "\n//--- spec.json\n"


def repo_kernels():
    """(name, kernel path, spec path) of every kernel folder in the repo."""
    out = []
    for d in sorted(glob.glob(os.path.join(ROOT, "examples", "*")) +
                    glob.glob(os.path.join(SHARED, "conformance", "*")) +
                    glob.glob(os.path.join(ROOT, "bench", "kernels", "*"))):
        k = os.path.join(d, "kernel.mlir")
        for spec in sorted(glob.glob(os.path.join(d, "spec*.json"))):
            if os.path.exists(k):
                out.append((os.path.relpath(d, ROOT) + ":" + os.path.basename(spec), k, spec))
    return out


def corpus_inputs(folder, tmp):
    """Splits each fuzz input into kernel and spec files under tmp."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        try:
            text = open(path, "rb").read().decode("utf-8", "replace")
        except OSError:
            continue
        if SEPARATOR not in text:
            continue
        kernel, spec = text.split(SEPARATOR, 1)
        base = os.path.join(tmp, f"c{len(out)}")
        with open(base + ".mlir", "w") as f:
            f.write(kernel)
        with open(base + ".json", "w") as f:
            f.write(spec)
        out.append((os.path.relpath(path, ROOT) if path.startswith(ROOT) else path,
                    base + ".mlir", base + ".json"))
    return out


def compile_one(pallasc, name, kernel, spec, target, limit, tmp):
    out = os.path.join(tmp, "out", re.sub(r"[^A-Za-z0-9]", "_", name)[-80:] + "." + target)
    start = time.monotonic()
    try:
        r = subprocess.run([pallasc, kernel, "--spec", spec, "-t", target, "-o", out],
                           capture_output=True, text=True, errors="replace", timeout=limit)
        code, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        code, err = None, ""
    seconds = time.monotonic() - start
    subprocess.run(["rm", "-rf", out])
    problem = None
    if code is None:
        problem = f"still compiling after {limit} s"
    elif code not in (0, 1):
        problem = f"exit {code}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    elif code == 1 and not re.search(r"^[^\s:]+:\d+:\d+: error:|^pallasc: error:|^error:", err, re.M):
        problem = "refused without a located error: " + (err.strip().splitlines() or [""])[0]
    return name, target, seconds, code, problem


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", default=[],
                    help="a fuzz corpus folder to compile too (repeatable)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--limit", type=float, default=10.0)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--show", type=int, default=10, help="how many of the slowest to list")
    ap.add_argument("--no-corpus", action="store_true",
                    help="the repo's kernel folders only, not test/fuzz/corpus-driver")
    args = ap.parse_args()
    pallasc = os.path.join(args.bin, "pallasc")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = repo_kernels()
        if not args.no_corpus:
            inputs += corpus_inputs(os.path.join(ROOT, "test", "fuzz", "corpus-driver"), tmp)
        for c in args.corpus:
            inputs += corpus_inputs(c, tmp)
        jobs = [(n, k, s, t) for n, k, s in inputs for t in args.targets.split(",")]
        print(f"{len(inputs)} kernels x {len(args.targets.split(','))} targets = {len(jobs)} compiles",
              flush=True)
        results = []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(compile_one, pallasc, n, k, s, t, args.limit, tmp)
                       for n, k, s, t in jobs]
            for f in concurrent.futures.as_completed(futures):
                results.append(f.result())
    compiled = [r for r in results if r[3] == 0]
    refused = [r for r in results if r[3] == 1]
    problems = [r for r in results if r[4]]
    print(f"compiled {len(compiled)}, refused with an error {len(refused)}, problems {len(problems)}")
    for name, target, seconds, code, _ in sorted(results, key=lambda r: -r[2])[:args.show]:
        print(f"  {seconds:6.2f} s  {target:8s} {'ok' if code == 0 else 'refused' if code == 1 else code}  {name}")
    for name, target, seconds, code, problem in problems:
        print(f"PROBLEM {target} {name}: {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
