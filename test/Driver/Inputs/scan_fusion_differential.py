"""Differential test of scan fusion: seeded random mutants of a chain's
backward kernel (lines deleted, swapped, numbers changed), each compiled
for the host by pallasc; where pallasc fused the mutant, the chain as
written and the fused chain run on the same random inputs
(test/Python/Inputs/check_vjp.py's host runner), and every gradient must
agree (3e-2, bf16) and have NaN in the same places. Prints how many
mutants were fused and checked, and the mismatches.

usage: scan_fusion_differential.py CHAIN_DIR OUT_DIR COUNT SEED
"""
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "..", "..", "Python", "Inputs")
sys.path[:0] = [INPUTS, os.path.join(HERE, "..", "..", "..", "python")]
import jax  # noqa: E402
import numpy as np  # noqa: E402
from pallasc_jax import chain  # noqa: E402
from pallasc_jax.mlir_text import NUMPY_DTYPES  # noqa: E402


def check_vjp_helpers():
  """check_vjp.py's host runner and input maker (the script runs its
  cases when imported: only the part before its command line)."""
  path = os.path.join(INPUTS, "check_vjp.py")
  source = open(path).read()
  scope = {"__file__": path, "__name__": "check_vjp"}
  exec(source[:source.index("args = sys.argv[1:]")], scope)
  return scope["host_runner"], scope["random_like"]


host_runner, random_like = check_vjp_helpers()


def mutate(lines, rng):
  """One or two random edits: a line deleted, a number changed, two lines
  swapped."""
  lines = list(lines)
  for _ in range(rng.randint(1, 2)):
    i, r = rng.randrange(len(lines)), rng.random()
    if r < 0.3:
      del lines[i]
    elif r < 0.7:
      numbers = list(re.finditer(r"\b\d+\b", lines[i]))
      if numbers:
        m = rng.choice(numbers)
        value = rng.choice([0, 1, 2, 63, 64, 65, 128, 4096])
        lines[i] = lines[i][:m.start()] + str(value) + lines[i][m.end():]
    else:
      j = rng.randrange(len(lines))
      lines[i], lines[j] = lines[j], lines[i]
  return lines


def arrays(rng, entries):
  return [random_like(rng, jax.ShapeDtypeStruct(a["shape"], NUMPY_DTYPES[a["dtype"]]))
          for a in entries]


def mismatches(written, fused):
  """Gradients that differ (3e-2, relative to 1 + |x|) or have NaN
  elsewhere."""
  bad = []
  for k, (x, y) in enumerate(zip(written, fused)):
    x, y = x.astype(np.float64), y.astype(np.float64)
    same_nan = np.array_equal(np.isnan(x), np.isnan(y))
    err = np.nanmax(np.abs(x - y) / (1 + np.abs(x))) if np.isfinite(x).any() else 0
    if not same_nan or err > 3e-2:
      bad.append((k, err, same_nan))
  return bad


def main():
  chain_dir, out_dir, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
  rng = random.Random(seed)
  base = open(os.path.join(chain_dir, "mha_backward", "kernel.mlir")).read().split("\n")
  checked = bad = 0
  for t in range(count):
    lines = mutate(base, rng)
    work = os.path.join(out_dir, str(t))
    shutil.copytree(chain_dir, work)
    with open(os.path.join(work, "mha_backward", "kernel.mlir"), "w") as f:
      f.write("\n".join(lines))
    fused_dir = os.path.join(work, "fused")
    compiled = subprocess.run(["pallasc", os.path.join(work, "chain.json"), "-t", "host",
                               "-o", fused_dir], capture_output=True)
    if compiled.returncode or not os.path.exists(
        os.path.join(fused_dir, "mha_backward", "kernel.mlir")):
      shutil.rmtree(work)  # refused, or compiled as written
      continue
    written = chain.load(work)
    data = np.random.default_rng(t)
    inputs, cotangents = arrays(data, written["inputs"]), arrays(data, written["cotangents"])
    try:
      want = chain.run(written, inputs, cotangents, host_runner(work))
    except Exception as e:  # noqa: BLE001 (a mutant the host cannot run)
      print(f"mutant {t}: the chain as written does not run: {str(e)[:100]}")
      shutil.rmtree(work)
      continue
    got = chain.run(chain.load(fused_dir), inputs, cotangents, host_runner(work, fused_dir))
    checked += 1
    for k, err, same_nan in mismatches(want["gradients"], got["gradients"]):
      bad += 1
      print(f"MISMATCH mutant {t} gradient {k}: error {err:.2e}, NaN in the same places: "
            f"{same_nan}")
      print("\n".join(l for l, b in zip(lines, base) if l != b)[:600])
    shutil.rmtree(work)
  print(f"{checked} fused mutants checked, {bad} mismatches")


if __name__ == "__main__":
  main()
