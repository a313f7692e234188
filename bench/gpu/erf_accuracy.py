#!/usr/bin/env python3
"""erf of f32 on the GPU as pallasc compiles it (a rational function
inline) against float64's, in ulp of the correctly rounded result, beside
torch.erf (CUDA's erff) on the same inputs: every f32 in [-4.5, 4.5] a
step of 2^20 apart, a million random ones, and 0, +-inf, NaN, subnormals.
Step 1, where pallasc is built:
  pallasc bench/gpu/inputs/erf_1m.mlir --spec bench/gpu/inputs/erf_1m.json \
    -t sm_90a,sm_80 -o .device/erf_1m
  (and bench/gpu/sm80_on_hopper.sh for the sm_80 build on an H100)
Step 2, on the GPU machine: python3 bench/gpu/erf_accuracy.py [DIR...]"""
import math, os, sys, numpy as np, torch
sys.path.insert(0, 'bench/gpu'); import bench

N = 1 << 20
dirs = sys.argv[1:] or ['.device/erf_1m/sm_90a']
specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, 1e-30, 3.9, 4.0, 4.5, 1e30],
                    dtype=np.float32)
grid = np.arange(np.float32(-4.5).view(np.int32) & 0x7FFFFFFF, 0, -(1 << 12), dtype=np.int32).view(np.float32)
rng = np.random.default_rng(0)
parts = [specials, grid, -grid, rng.standard_normal(N, dtype=np.float32) * 2]
xs = np.concatenate(parts)
xs = np.concatenate([xs, np.zeros((-len(xs)) % N, np.float32)])
want = np.array([math.erf(float(v)) if math.isfinite(v) else (math.copysign(1, v) if math.isinf(v) else math.nan)
                 for v in xs])
ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
ulp[ulp == 0] = np.spacing(np.float32(0))

def ulps(got):
    got = got.astype(np.float64)
    nan_ok = np.isnan(want) == np.isnan(got)
    e = np.where(np.isnan(want), 0.0, np.abs(got - want) / ulp)
    return np.nanmax(e), bool(nan_ok.all())

drv = bench.Driver()
ok = True
for d in dirs:
    k = bench.OurKernel(drv, d)
    out = []
    for i in range(0, len(xs), N):
        x = torch.from_numpy(xs[i:i + N]).cuda(); o = torch.full_like(x, 7.0)
        k.bind(x, o)(); torch.cuda.synchronize(); out.append(o.cpu().numpy())
    worst, nans = ulps(np.concatenate(out))
    print(f'{d}: max error {worst:.2f} ulp, NaN exactly where float64 has it: {nans}')
    ok &= worst <= 8 and nans
worst, nans = ulps(torch.erf(torch.from_numpy(xs).cuda()).cpu().numpy())
print(f'torch.erf (CUDA erff): max error {worst:.2f} ulp, NaN where float64 has it: {nans}')
sys.exit(0 if ok else 1)
