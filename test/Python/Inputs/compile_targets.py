"""Exports cases of cases.py and hands each to the consumers of the other
targets: pallasc -t triton, then triton.compile of the .ttir (for sm_90);
pallasc -t tpu_v5e, then jaxlib's verification (test/Mosaic/check_mosaic.py).
A target may refuse a kernel only with a located error (kernel.mlir:L:C or
a spec path); the line printed for it is that error.

usage: compile_targets.py OUT_DIR CASE...
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path[:0] = [HERE, os.path.join(ROOT, "python")]
from cases import CASES  # noqa: E402
from pallasc_jax import export  # noqa: E402


def pallasc(mlir, spec, target, out):
  r = subprocess.run(["pallasc", mlir, "--spec", spec, "-t", target, "-o", out],
                     capture_output=True, text=True)
  if r.returncode == 0:
    return None
  first = next((l for l in r.stderr.splitlines() if "error:" in l), r.stderr.strip())
  if r.returncode != 1 or not re.search(r"(kernel\.mlir:\d+:\d+|spec\.json:\d+:\d+): error:", first):
    raise SystemExit(f"pallasc -t {target} failed without a located error (exit "
                     f"{r.returncode}): {first}")
  return first[first.index("error:"):]


def triton_compile(out):
  import triton
  from triton.backends.compiler import GPUTarget
  launch = json.load(open(next(os.path.join(out, f) for f in os.listdir(out)
                               if f.endswith(".manifest.json"))))["launch"]
  ttir = next(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".ttir"))
  k = triton.compile(ttir, target=GPUTarget("cuda", 90, 32),
                     options={"num_warps": launch["num_warps"], "num_stages": launch["num_stages"]})
  return "cubin" if k.asm.get("cubin") else "no cubin"


out_root, *cases = sys.argv[1:]
for case in cases:
  fn, example, *_ = CASES[case]
  mlir, spec = export(fn, *example).write(os.path.join(out_root, case))
  d = os.path.join(out_root, case)
  refused = pallasc(mlir, spec, "triton", os.path.join(d, "triton"))
  print(f"{case} triton: " + (f"refused: {refused}" if refused else
                               f"triton.compile made a {triton_compile(os.path.join(d, 'triton'))}"))
  refused = pallasc(mlir, spec, "tpu_v5e", os.path.join(d, "tpu_v5e"))
  if refused:
    print(f"{case} tpu_v5e: refused: {refused}")
    continue
  r = subprocess.run([sys.executable, os.path.join(ROOT, "test", "Mosaic", "check_mosaic.py"),
                      os.path.join(d, "tpu_v5e")], capture_output=True, text=True)
  ok = r.returncode == 0 and "verified" in r.stdout
  print(f"{case} tpu_v5e: " + ("jaxlib verified it" if ok else f"JAXLIB REJECTED: {r.stdout}{r.stderr}"))
