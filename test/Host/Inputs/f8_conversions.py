#!/usr/bin/env python3
"""Runs f8_conversions.mlir on the host (pallas-run) and compares every
output with ml_dtypes: all 256 codes of f8E4M3FN and f8E5M2 extended, and
f32 values truncated (ties, subnormals, overflow, infinities, NaN and random
values of every magnitude).  usage: f8_conversions.py BIN_DIR"""
import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

E4, E5 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2
HERE = os.path.dirname(os.path.abspath(__file__))


def wide_values(rng):
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 464.0, 465.0, 480.0, 57344.0,
               61440.0, 65536.0, 1e30, -1e30, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11,
               2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -18, 1e-45, 1.0625, 1.1875, 1.125, -1.0625]
    # Every midpoint between neighbouring f8 values (ties) and around them.
    mids = []
    for t in (E4, E5):
        v = np.arange(256, dtype=np.uint8).view(t).astype(np.float32)
        v = np.sort(v[np.isfinite(v)])
        m = (v[1:] + v[:-1]) / 2
        mids += [m, np.nextafter(m, np.float32(np.inf)), np.nextafter(m, np.float32(-np.inf))]
    mids = np.concatenate(mids).astype(np.float32)
    rest = 4096 - len(special) - len(mids)
    randoms = (rng.standard_normal(rest) * np.exp2(rng.integers(-20, 18, rest))).astype(np.float32)
    return np.concatenate([np.array(special, np.float32), mids, randoms]).astype(np.float32)


def same(got, want):
    """Equal bits, or both NaN."""
    with np.errstate(invalid="ignore"):
        g, w = got.astype(np.float64), want.astype(np.float64)
    return (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")) | (np.isnan(g) & np.isnan(w))


def main():
    bindir = sys.argv[1]
    rng = np.random.default_rng(7)
    codes = np.arange(256, dtype=np.uint8)
    wide = wide_values(rng)
    assert wide.size == 4096, wide.size
    want = [codes.view(E4).astype(np.float32), codes.view(E5).astype(np.float32),
            codes.view(E4).astype(np.float16), wide.astype(E4).view(np.uint8),
            wide.astype(E5).view(np.uint8)]
    names = ["e4_f32", "e5_f32", "e4_f16", "w_e4", "w_e5"]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        ins = [os.path.join(tmp, f"in{i}.npy") for i in range(3)]
        for path, a in zip(ins, [codes, codes, wide]):
            np.save(path, a)
        outs = [os.path.join(tmp, f"out{i}.npy") for i in range(5)]
        cmd = [os.path.join(bindir, "pallas-run"), os.path.join(HERE, "f8_conversions.mlir"),
               "--spec", os.path.join(HERE, "f8_conversions.json"), "--inputs", *ins,
               "--outputs", *outs]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode:
            sys.exit(f"FAIL: {' '.join(cmd)} exited {run.returncode}\n{run.stderr}")
        for name, path, w in zip(names, outs, want):
            got = np.load(path)
            if got.dtype.itemsize != w.dtype.itemsize:
                got = got.view(w.dtype)
            got = got.view(w.dtype)
            if name.startswith("w_"):  # f8 codes: NaN is any NaN code
                t = E4 if name == "w_e4" else E5
                ok = same(got.view(t).astype(np.float32), w.view(t).astype(np.float32))
            else:
                ok = same(got, w)
            if not ok.all():
                i = int(np.argwhere(~ok)[0][0])
                src = codes[i] if not name.startswith("w_") else wide[i]
                print(f"FAIL {name}: {(~ok).sum()} of {ok.size} differ; first at {i} "
                      f"(input {src!r}): got {got[i]!r}, want {w[i]!r}")
                failures += 1
            else:
                print(f"PASS {name}: {ok.size} elements")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
