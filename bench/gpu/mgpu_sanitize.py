#!/usr/bin/env python3
"""One launch of our sm_90a build of an exported plgpu matmul (512^3,
prepared by bench/gpu/prepare_mgpu.sh: matmul or pipelined_matmul, each
build of it), checked against torch; run under compute-sanitizer:

  compute-sanitizer --tool memcheck --error-exitcode 9 python3 bench/gpu/mgpu_sanitize.py matmul sm_90a
  compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 \\
      python3 bench/gpu/mgpu_sanitize.py pipelined_matmul sm_90a
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

case, build = sys.argv[1], sys.argv[2]
art = os.path.join(HERE, "..", "..", ".device", "mgpu", case + "_small", build)
drv = bench.Driver()
a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
out = torch.full((512, 512), float("nan"), device="cuda", dtype=torch.float16)
bench.OurKernel(drv, art).bind(a, b, out)()
torch.cuda.synchronize()
err = ((out.float() - a.float() @ b.float()).abs() / (1 + (a.float() @ b.float()).abs())).max()
print(f"{case} 512^3 ({build}): max error {err.item():.1e}")
sys.exit(0 if err.item() < 2e-2 else 1)
