#!/usr/bin/env python3
"""Step 2 of the GPU check of the JAX front end, on the GPU machine (run.sh
runs it): each case bench/gpu/export_jax.py prepared under DIR/CASE/ runs
as our sm_90a cubin (pallas-launch, on the saved operands) and is compared,
every element, with JAX's interpret mode (computed where it was exported)
and, for the cases whose function is its pallas_call, with JAX's own GPU
kernel (the same function under jax.jit on this GPU). Prints a markdown
table; exit status 1 on any mismatch or failure.

usage: jax_exported.py [DIR]   (default .device/gpu/jax; $PALLAS_LAUNCH)
"""
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, "test", "Python", "Inputs")]
import ml_dtypes  # noqa: E402


def load(path, dtype):
  x = np.load(path)
  return x.view(ml_dtypes.bfloat16) if dtype == "bfloat16" else x


def max_error(got, want):
  got, want = got.astype(np.float64), want.astype(np.float64)
  if got.shape != want.shape:
    return float("inf")
  if not np.all(np.isfinite(got)):
    return float("nan")
  return float(np.max(np.abs(got - want) / (1 + np.abs(want)))) if got.size else 0.0


def run_case(case_dir, launcher):
  meta = json.load(open(os.path.join(case_dir, "case.json")))
  dtypes, tol = meta["out_dtypes"], meta["tolerance"]
  ins = sorted((f for f in os.listdir(case_dir) if f.startswith("in") and f.endswith(".npy")),
               key=lambda f: int(f[2:-4]))
  in_paths = [os.path.join(case_dir, f) for f in ins]
  out_paths = [os.path.join(case_dir, f"got{k}.npy") for k in range(len(dtypes))]
  r = subprocess.run([launcher, os.path.join(case_dir, "sm_90a"), "--inputs", *in_paths,
                      "--outputs", *out_paths], capture_output=True, text=True)
  if r.returncode != 0:
    return "FAILED", f"pallas-launch: {r.stderr.strip()[:200]}", "-"
  got = [load(p, d) for p, d in zip(out_paths, dtypes)]
  want = [load(os.path.join(case_dir, f"want{k}.npy"), d) for k, d in enumerate(dtypes)]
  errs = [max_error(g, w) for g, w in zip(got, want)]
  interp = ("match" if all(e <= tol for e in errs) else "MISMATCH") + \
      f" ({max(errs):.1e}, {sum(w.size for w in want)} elements)"
  if not meta["whole_function"]:
    return interp, "", "- (computes around its pallas_call)"
  try:
    import jax
    from cases import CASES
    fn = CASES[meta["case"]][0]
    args = [jax.device_put(load(p, d)) for p, d in zip(in_paths, meta["in_dtypes"])]
    ref = [np.asarray(x) for x in jax.tree.leaves(jax.jit(fn)(*args))]
    gerrs = [max_error(g, w) for g, w in zip(got, ref)]
    gpu = ("match" if all(e <= tol for e in gerrs) else "MISMATCH") + f" ({max(gerrs):.1e})"
  except Exception as e:
    gpu = f"FAILED: {type(e).__name__}: {str(e)[:120]}"
  return interp, "", gpu


def main():
  root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".device", "gpu", "jax")
  launcher = os.environ.get("PALLAS_LAUNCH", "pallas-launch")
  rows, bad = [], False
  for case in sorted(os.listdir(root)):
    d = os.path.join(root, case)
    if os.path.exists(os.path.join(d, "error.txt")):
      rows.append((case, "FAILED", open(os.path.join(d, "error.txt")).read().strip(), "-"))
      bad = True
      continue
    interp, note, gpu = run_case(d, launcher)
    bad |= "MISMATCH" in interp or "FAILED" in interp or "MISMATCH" in gpu or "FAILED" in gpu
    rows.append((case, interp, note, gpu))
  print("| exported JAX kernel | ours (sm_90a cubin) vs interpret mode | vs JAX's own GPU kernel | notes |")
  print("|---|---|---|---|")
  for case, interp, note, gpu in rows:
    print(f"| {case} | {interp} | {gpu} | {note} |")
  return 1 if bad else 0


if __name__ == "__main__":
  sys.exit(main())
