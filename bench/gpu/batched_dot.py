#!/usr/bin/env python3
"""Batched dots on the tensor cores: bench/kernels/batched_dot_f16_scores
(einsum("hqd,hkd->hqk") over 64 heads, S 512, D 64, four heads per
program as written) from bench/gpu/prepare.sh's .device/gpu, against
cuBLAS's batched GEMM (torch.matmul of the same tensors), same run; every
element checked against a float64 product first."""
import os, statistics, sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
drv = bench.Driver()
k = bench.OurKernel(drv, os.path.join(ROOT, ".device", "gpu", "batched_dot_f16_scores", "sm_90a"))
sets = []
for _ in range(4):
  q = torch.randn(64, 512, 64, device="cuda", dtype=torch.float16)
  kk = torch.randn(64, 512, 64, device="cuda", dtype=torch.float16)
  sets.append((q, kk, torch.full((64, 512, 512), float("nan"), device="cuda")))
launches = [k.bind(*s) for s in sets]
launches[0]()
torch.cuda.synchronize()
q, kk, s = sets[0]
want = q.double() @ kk.double().transpose(-1, -2)
err = ((s.double() - want).abs() / (1 + want.abs())).max().item()
finite = bool(torch.isfinite(s).all())
print(f"batched scores: max error {err:.1e} on all {s.numel()} elements, all written: {finite}")
ours = statistics.median(bench.time_stream(launches, 10))
# cuBLAS's batched GEMM with f32 results from f16 (torch.bmm's out_dtype);
# where torch lacks it, with f16 results (half the bytes written: an
# anchor at least as fast).
try:
  torch.bmm(q, kk.transpose(-1, -2), out_dtype=torch.float32)
  anchor = "f32 out"
  bmm = lambda x: torch.bmm(x[0], x[1].transpose(-1, -2), out_dtype=torch.float32)
except (TypeError, RuntimeError):
  anchor = "f16 out"
  bmm = lambda x: torch.bmm(x[0], x[1].transpose(-1, -2))
cublas = statistics.median(bench.time_stream([lambda x=x: bmm(x) for x in sets], 10))
flop = 2 * 64 * 512 * 512 * 64
print(f"ours {ours:.4f} ms ({flop / ours / 1e9:.0f} TFLOP/s); cuBLAS bmm ({anchor}) {cublas:.4f} ms "
      f"({flop / cublas / 1e9:.0f} TFLOP/s): {cublas / ours:.2f}x")
sys.exit(0 if err < 1e-2 and finite else 1)
