"""Compares f8_arith.mlir's outputs (pallas-run) with ml_dtypes: x * x in
f8E4M3FN and exp(y) in f8E5M2 for every code (NaN matches any NaN).
usage: f8_arith_check.py OUT_E4M3.npy OUT_E5M2.npy"""
import sys

import ml_dtypes
import numpy as np

codes = np.arange(256, dtype=np.uint8)
x = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
y = codes.view(ml_dtypes.float8_e5m2).astype(np.float32)
with np.errstate(all="ignore"):
    wants = [(x * x).astype(ml_dtypes.float8_e4m3fn), np.exp(y).astype(ml_dtypes.float8_e5m2)]
for name, path, want in zip(["mul f8E4M3FN", "exp f8E5M2"], sys.argv[1:3], wants):
    got = np.load(path).view(want.dtype).astype(np.float32)
    w = want.astype(np.float32)
    ok = (got == w) | (np.isnan(got) & np.isnan(w))
    print(f"{name}: {int(ok.sum())} of {ok.size} match")
