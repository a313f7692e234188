#!/usr/bin/env python3
"""GEMMs with a fused epilogue (bench/kernels/gemm_bf16_4096_bias_gelu:
bias + tanh-GELU; gemm_bf16_4096_bias_relu: bias + relu; built by
bench/gpu/prepare_gemm_forms.sh into .device/gemm_forms_epilogue) against
torch._addmm_activation (cuBLASLt's fused epilogue) and cuBLAS's matmul
alone, same run; each checked against a float64 reference first."""
import sys, statistics, torch
sys.path.insert(0, 'bench/gpu'); import bench
import os
# GEMM_EPILOGUE_SMALL=1: the 512 x 512 (K 4096) build of the GELU one, one
# launch, no timing (for compute-sanitizer).
small = bool(os.environ.get("GEMM_EPILOGUE_SMALL"))
drv = bench.Driver(); n = 512 if small else 4096; bf = torch.bfloat16
sets = []
for _ in range(4):
  x = torch.randn(n, 4096, device='cuda', dtype=bf); y = torch.randn(4096, n, device='cuda', dtype=bf) / 64
  b = torch.randn(1, n, device='cuda', dtype=bf); z = torch.full((n, n), float('nan'), device='cuda', dtype=bf)
  sets.append((x, y, b, z))
ok = True
cases = [('bias+gelu', 'small' if small else 'sm_90a', True)] + ([] if small else [('bias+relu', 'relu', False)])
for label, build, gelu in cases:
  for s in sets:
    s[3].fill_(float('nan'))
  k = bench.OurKernel(drv, '.device/gemm_forms_epilogue/' + build)
  ls = [k.bind(*s) for s in sets]; ls[0](); torch.cuda.synchronize()
  x, y, b, z = sets[0]
  h = x.double() @ y.double() + b.double()
  want = torch.nn.functional.gelu(h, approximate='tanh') if gelu else torch.relu(h)
  err = ((z.double() - want).abs() / (1 + want.abs())).max().item()
  finite = bool(torch.isfinite(z).all())
  print(label, 'max error', err, 'finite', finite)
  ok &= err < 2e-2 and finite
  if small:
    continue
  ours = statistics.median(bench.time_stream(ls, 10))
  lt = statistics.median(bench.time_stream([lambda s=s: torch._addmm_activation(s[2][0], s[0], s[1], use_gelu=gelu) for s in sets], 10))
  mm = statistics.median(bench.time_stream([lambda s=s: torch.matmul(s[0], s[1], out=s[3]) for s in sets], 10))
  print(f'{label}: ours {ours:.3f} ms; torch._addmm_activation {lt:.3f} ms ({lt/ours:.2f}x); cuBLAS matmul alone {mm:.3f} ms ({mm/ours:.2f}x)')
sys.exit(0 if ok else 1)
