"""pallas-run on examples/matmul_symbolic at several (M, N, K): the sizes are
bound from the .npy shapes, the result is compared with NumPy in float64 on
the same bf16 inputs (every element: the launcher poisons outputs with NaN),
and shapes that disagree about a size are refused. Usage: run_sizes.py BINDIR
SRCROOT TMPDIR."""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

bindir, root, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
kernel = os.path.join(root, "examples", "matmul_symbolic", "kernel.mlir")
spec = os.path.join(root, "examples", "matmul_symbolic", "spec.json")
rng = np.random.default_rng(5)


def bf16(shape):
    # Non-zero values in [-1, 1).
    v = rng.uniform(0.01, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
    return v.astype(ml_dtypes.bfloat16)


def run(x, y):
    xs, ys, zs = (os.path.join(tmp, n + ".npy") for n in "xyz")
    np.save(xs, x.view(np.uint16))
    np.save(ys, y.view(np.uint16))
    r = subprocess.run([os.path.join(bindir, "pallas-run"), kernel, "--spec", spec,
                        "--inputs", xs, ys, "--outputs", zs],
                       capture_output=True, text=True)
    return r, zs


for m, n, k in [(1, 1, 1), (1, 70, 3), (63, 65, 130), (64, 64, 64), (200, 17, 300)]:
    x, y = bf16((m, k)), bf16((k, n))
    r, zs = run(x, y)
    if r.returncode != 0:
        sys.exit(f"M={m} N={n} K={k}: {r.stderr}")
    z = np.load(zs)
    ref = x.astype(np.float64) @ y.astype(np.float64)
    mag = np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64))
    bad = int(np.count_nonzero(~(np.abs(z - ref) <= 1e-5 * mag + 1e-6)))
    print(f"M={m} N={n} K={k}: shape {list(z.shape)}, {bad} of {z.size} wrong")

r, _ = run(bf16((3, 7)), bf16((5, 4)))
print(r.returncode, r.stderr.strip())
r, _ = run(bf16((70000, 2)), bf16((2, 2)))
print(r.returncode, r.stderr.strip())
