#!/usr/bin/env python3
"""Every element type of the dialect through the GPU runners' dtype module
(bench/dtypes.py) and the launcher: for each dtype, a kernel copying x to o
and writing x + x (x | x for i1) to o2 is compiled for the host, run by
pallas-launch on bench/dtypes.random_input's values, and compared with
dtypes.to_float of the inputs. usage: dtype_roundtrip.py BIN_DIR TMP_DIR"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
import dtypes  # noqa: E402

bindir, tmp = sys.argv[1], sys.argv[2]
status = 0
for dt in ["f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "i64", "i32", "i16", "i8", "i1"]:
    d = os.path.join(tmp, dt)
    os.makedirs(d, exist_ok=True)
    ty, ref = "tensor<64x%s>" % dt, "!pallas.ref<64x%s>" % dt
    combine = "arith.ori" if dt == "i1" else "arith.addi" if dt.startswith("i") else "arith.addf"
    if dt.startswith("f8"):
        combine = None  # the host target has no f8 arithmetic: copies only
    second = "%%w = %s %%v, %%v : %s" % (combine, ty) if combine else "%w = arith.addi %c, %c : i32"
    stored = "%w" if combine else "%v"
    with open(os.path.join(d, "k.mlir"), "w") as f:
        f.write("pallas.kernel @copy(%%x: %s, %%o: %s, %%o2: %s) {\n"
                "  %%c = arith.constant 0 : i32\n"
                "  %%v = pallas.load %%x[...] : %s -> %s\n"
                "  pallas.store %%o[...], %%v : %s, %s\n"
                "  %s\n"
                "  pallas.store %%o2[...], %s : %s, %s\n"
                "  pallas.return\n}\n" % (ref, ref, ref, ref, ty, ref, ty, second, stored, ref, ty))
    arr = {"shape": [64], "dtype": dt}
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump({"kernel": "copy", "grid": [1], "inputs": [dict(arr, name="x")],
                   "outputs": [dict(arr, name="o"), dict(arr, name="o2")]}, f)
    art = os.path.join(d, "art")
    r = subprocess.run([os.path.join(bindir, "pallasc"), os.path.join(d, "k.mlir"), "--spec",
                        os.path.join(d, "spec.json"), "-t", "host", "-o", art],
                       capture_output=True, text=True)
    if r.returncode:
        print("FAIL %s: pallasc: %s" % (dt, r.stderr.strip()[:200]))
        status = 1
        continue
    x = dtypes.random_input(np.random.default_rng(5), [64], dt, (-50, 50))
    files = [os.path.join(d, n) for n in ("x.npy", "o.npy", "o2.npy")]
    np.save(files[0], x)
    r = subprocess.run([os.path.join(bindir, "pallas-launch"), art, "--inputs", files[0],
                        "--outputs", *files[1:]], capture_output=True, text=True)
    if r.returncode:
        print("FAIL %s: pallas-launch: %s" % (dt, r.stderr.strip()[:200]))
        status = 1
        continue
    xv = dtypes.to_float(x, dt)
    if dt == "i1" or dt.startswith("f8"):
        want2 = xv
    elif dt.startswith("i"):
        bits = int(dt[1:])
        wrapped = (2 * x.astype(object) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        want2 = wrapped.astype(np.int64).astype(np.float64)
    else:
        # x + x is exact (a power-of-two scaling) unless it overflows the type.
        want2 = dtypes.to_float(dtypes.from_float(2 * xv, dt), dt)
    got = [dtypes.to_float(np.load(f), dt) for f in files[1:]]
    ok = np.array_equal(got[0], xv) and np.array_equal(got[1], want2)
    print("%s %s: %d elements" % ("PASS" if ok else "FAIL", dt, xv.size))
    status |= not ok
sys.exit(status)
