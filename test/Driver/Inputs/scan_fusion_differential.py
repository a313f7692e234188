"""Differential test of scan fusion: seeded random mutants of a chain's
backward kernel (lines deleted, swapped, numbers changed), each compiled
for the host by pallasc; where pallasc fused the mutant, the chain as
written and the fused chain run on the same random inputs
(test/Python/Inputs/check_vjp.py's host runner), and every gradient must
agree (3e-2, bf16) and have NaN in the same places. Prints how many
mutants were fused and checked, and the mismatches.

usage: scan_fusion_differential.py CHAIN_DIR OUT_DIR COUNT SEED
"""
import os, random, re, shutil, subprocess, sys, json
HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "..", "..", "Python", "Inputs")
sys.path[:0] = [INPUTS, os.path.join(HERE, "..", "..", "..", "python")]
import numpy as np
# check_vjp.py's runner (the script runs its cases when imported).
_src = open(os.path.join(INPUTS, 'check_vjp.py')).read()
_src = _src[:_src.index('args = sys.argv[1:]')]
_g = {'__file__': os.path.join(INPUTS, 'check_vjp.py'), '__name__': 'check_vjp'}
exec(_src, _g)
host_runner, random_like = _g['host_runner'], _g['random_like']
from pallasc_jax import chain
import jax
from pallasc_jax.mlir_text import NUMPY_DTYPES
src = sys.argv[1]; out = sys.argv[2]; n = int(sys.argv[3]); rng = random.Random(int(sys.argv[4]))
base = open(os.path.join(src, "mha_backward", "kernel.mlir")).read().split("\n")
checked = bad = 0
for t in range(n):
  lines = list(base)
  for _ in range(rng.randint(1, 2)):
    i = rng.randrange(len(lines)); r = rng.random()
    if r < 0.3: del lines[i]
    elif r < 0.7:
      nums = list(re.finditer(r"\b\d+\b", lines[i]))
      if nums:
        m = rng.choice(nums); lines[i] = lines[i][:m.start()] + str(rng.choice([0, 1, 2, 63, 64, 65, 128, 4096])) + lines[i][m.end():]
    else:
      j = rng.randrange(len(lines)); lines[i], lines[j] = lines[j], lines[i]
  d = os.path.join(out, str(t)); shutil.copytree(src, d)
  open(os.path.join(d, "mha_backward", "kernel.mlir"), "w").write("\n".join(lines))
  r = subprocess.run(["pallasc", os.path.join(d, "chain.json"), "-t", "host", "-o", os.path.join(d, "f")], capture_output=True)
  if r.returncode or not os.path.exists(os.path.join(d, "f", "mha_backward", "kernel.mlir")):
    shutil.rmtree(d); continue
  m_exp = chain.load(d); m_f = chain.load(os.path.join(d, "f"))
  g = np.random.default_rng(t)
  ins = [random_like(g, jax.ShapeDtypeStruct(a["shape"], NUMPY_DTYPES[a["dtype"]])) for a in m_exp["inputs"]]
  cts = [random_like(g, jax.ShapeDtypeStruct(c["shape"], NUMPY_DTYPES[c["dtype"]])) for c in m_exp["cotangents"]]
  try:
    a = chain.run(m_exp, ins, cts, host_runner(d))
  except Exception as e:
    print(t, "as written fails to run:", str(e)[:100]); shutil.rmtree(d); continue
  b = chain.run(m_f, ins, cts, host_runner(d, os.path.join(d, "f")))
  checked += 1
  for k, (x, y) in enumerate(zip(a["gradients"], b["gradients"])):
    x = x.astype(np.float64); y = y.astype(np.float64)
    same_nan = np.array_equal(np.isnan(x), np.isnan(y))
    err = np.nanmax(np.abs(x - y) / (1 + np.abs(x))) if np.isfinite(x).any() else 0
    if not same_nan or err > 3e-2:
      bad += 1; print("MISMATCH", t, k, err, same_nan); print("\n".join(l for l, b0 in zip(lines, base) if l != b0)[:600])
  shutil.rmtree(d)
print(f"{checked} fused mutants checked, {bad} mismatches")
