#!/usr/bin/env python3
"""GEMMs with a fused epilogue (bf16 4096^3, an in-kernel K loop over
128x256 tiles, then the epilogue in f32, stored as bf16), built by
bench/gpu/prepare_gemm_forms.sh into .device/gemm_forms_epilogue/<case>,
each checked against a float64 reference first, then timed in the same run
beside its anchor:

  bias+gelu      bench/kernels/gemm_bf16_4096_bias_gelu      torch._addmm_activation(use_gelu=True)
  bias+relu      bench/kernels/gemm_bf16_4096_bias_relu      torch._addmm_activation(use_gelu=False)
  bias+silu      bench/kernels/gemm_bf16_4096_bias_silu      torch.addmm + F.silu
  bias+gelu_erf  bench/kernels/gemm_bf16_4096_bias_gelu_erf  torch.addmm + F.gelu
  scale+residual bench/kernels/gemm_bf16_4096_scale_residual torch.addmm(res, x, y, alpha=a)

(cuBLASLt fuses only bias with relu or tanh-GELU; the rest are cuBLAS with
the epilogue as torch runs it.) Every case also against cuBLAS's matmul
alone, which no fused epilogue can beat.

EPILOGUE_BUILDS: other build roots to time beside the first, comma
separated (e.g. the same kernels from an earlier compiler, for a before /
after in one run). GEMM_EPILOGUE_SMALL=1: the 512 x 512 (K 4096) build of
the GELU one, one launch, no timing (for compute-sanitizer)."""
import os, sys, statistics, torch
import torch.nn.functional as F
sys.path.insert(0, 'bench/gpu'); import bench

small = bool(os.environ.get("GEMM_EPILOGUE_SMALL"))
roots = ['.device/gemm_forms_epilogue'] + [r for r in os.environ.get('EPILOGUE_BUILDS', '').split(',') if r]
drv = bench.Driver(); n = 512 if small else 4096; bf = torch.bfloat16
alpha = 0.75
sets = []
for _ in range(4):
  x = torch.randn(n, 4096, device='cuda', dtype=bf); y = torch.randn(4096, n, device='cuda', dtype=bf) / 64
  b = torch.randn(1, n, device='cuda', dtype=bf); r = torch.randn(n, n, device='cuda', dtype=bf)
  z = torch.full((n, n), float('nan'), device='cuda', dtype=bf)
  sets.append(dict(x=x, y=y, b=b, r=r, z=z, a=torch.tensor([alpha], device='cuda', dtype=torch.float32)))

def ref(case, s):
  x, y = s['x'].double(), s['y'].double()
  if case == 'scale+residual':
    return alpha * (x @ y) + s['r'].double()
  h = x @ y + s['b'].double()
  return {'bias+gelu': lambda: F.gelu(h, approximate='tanh'), 'bias+relu': lambda: torch.relu(h),
          'bias+silu': lambda: F.silu(h), 'bias+gelu_erf': lambda: F.gelu(h)}[case]()

def operands(case, s):
  if case == 'scale+residual':
    return (s['a'], s['x'], s['y'], s['r'], s['z'])
  return (s['x'], s['y'], s['b'], s['z'])

def anchor(case, s):
  x, y, b, z = s['x'], s['y'], s['b'], s['z']
  if case in ('bias+gelu', 'bias+relu'):
    return lambda: torch._addmm_activation(b[0], x, y, use_gelu=case == 'bias+gelu')
  if case == 'bias+silu':
    return lambda: F.silu(torch.addmm(b[0], x, y))
  if case == 'bias+gelu_erf':
    return lambda: F.gelu(torch.addmm(b[0], x, y))
  return lambda: torch.addmm(s['r'], x, y, alpha=alpha, out=z)

anchor_name = {'bias+gelu': 'torch._addmm_activation', 'bias+relu': 'torch._addmm_activation',
               'bias+silu': 'addmm + silu', 'bias+gelu_erf': 'addmm + gelu',
               'scale+residual': 'addmm(res, alpha)'}
cases = [('bias+gelu', 'small')] if small else [
  ('bias+gelu', 'sm_90a'), ('bias+relu', 'relu'), ('bias+silu', 'silu'),
  ('bias+gelu_erf', 'gelu_erf'), ('scale+residual', 'scale_residual')]
ok = True
for case, build in cases:
  times = []
  for root in roots:
    for s in sets:
      s['z'].fill_(float('nan'))
    k = bench.OurKernel(drv, os.path.join(root, build))
    ls = [k.bind(*operands(case, s)) for s in sets]; ls[0](); torch.cuda.synchronize()
    want = ref(case, sets[0]); z = sets[0]['z']
    err = ((z.double() - want).abs() / (1 + want.abs())).max().item()
    finite = bool(torch.isfinite(z).all())
    print(f'{case} [{root}]: max error {err:.2e}, every element written {finite}')
    ok &= err < 2e-2 and finite
    if not small:
      times.append((root, statistics.median(bench.time_stream(ls, 10))))
  if small:
    continue
  lt = statistics.median(bench.time_stream([anchor(case, s) for s in sets], 10))
  mm = statistics.median(bench.time_stream([lambda s=s: torch.matmul(s['x'], s['y'], out=s['z']) for s in sets], 10))
  for root, ours in times:
    print(f'{case} [{root}]: ours {ours:.4f} ms; {anchor_name[case]} {lt:.4f} ms ({lt/ours:.3f}x); '
          f'cuBLAS matmul alone {mm:.4f} ms ({mm/ours:.3f}x)')
sys.exit(0 if ok else 1)
