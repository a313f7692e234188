#!/usr/bin/env python3
"""One launch of the 520^3 bf16 grid-k GEMM (bench/gpu/prepare_gemm_forms.sh
builds it into .device/gemm_forms_small: blocks overhang the arrays) and
one of the conformance matmul_kloop at 512 x 512 x 4096 (its programs
merged in pairs), each checked against a float64 product; for
compute-sanitizer:

  compute-sanitizer --tool memcheck --error-exitcode 9 python3 bench/gpu/gemm_forms_sanitize.py
"""
import sys, torch; sys.path.insert(0, 'bench/gpu'); import bench
drv = bench.Driver(); m = n = k = 520
a = torch.randn(m, k, device='cuda', dtype=torch.bfloat16); b = torch.randn(k, n, device='cuda', dtype=torch.bfloat16)
o = torch.full((m, n), float('nan'), device='cuda', dtype=torch.bfloat16)
bench.OurKernel(drv, '.device/gemm_forms_small/sm_90a').bind(a, b, o)(); torch.cuda.synchronize()
w = a.double() @ b.double(); e = ((o.double() - w).abs() / (1 + w.abs())).max().item()
print('grid_k 520^3 max error', e)
m, n, k = 512, 512, 4096
a2 = torch.randn(m, k, device='cuda', dtype=torch.bfloat16); b2 = torch.randn(k, n, device='cuda', dtype=torch.bfloat16)
o2 = torch.full((m, n), float('nan'), device='cuda', dtype=torch.bfloat16)
bench.OurKernel(drv, '.device/gemm_forms_small/kloop').bind(a2, b2, o2)(); torch.cuda.synchronize()
w2 = a2.double() @ b2.double(); e2 = ((o2.double() - w2).abs() / (1 + w2.abs())).max().item()
print('matmul_kloop 512x512x4096 max error', e2); sys.exit(0 if max(e, e2) < 2e-2 else 1)
