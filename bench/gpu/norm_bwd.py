#!/usr/bin/env python3
"""Norm training check, step 2 (step 1: bench/gpu/prepare_norm_bwd.sh):
JAX's layer_norm and rms_norm with their Pallas backward, exported by
pallasc_jax --vjp and built with --emit torch (the forward kernel's op
with autograd through the backward kernels), on [8, 1024, 4096] bf16,
beside torch's own F.layer_norm and F.rms_norm, in the same run.

Checked: the output and the gradients of x, weight and bias against
float64 autograd of the same formula, normwise 1e-2 (bf16), every element
finite. Timed: the backward pass as a training step runs it
(torch.autograd.grad of the output, the forward's saved tensors kept),
and the forward; bench.py's events around batches. Prints a markdown
table (its rate column: GB/s of the least a backward moves, x, dy and
dx); $OUT/norm_bwd.md.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bench  # noqa: E402

bench.REPS = int(os.environ.get("REPS", "20"))
DIR = os.environ.get("NORM_BWD_DIR", os.path.join(ROOT, ".device", "norm_bwd"))
SHAPE, N = (8, 1024, 4096), 4096


def reference(case, x, w, b):
  x, w, b = (t.double() for t in (x, w, b))
  if case == "layer_norm_bf16":
    return torch.nn.functional.layer_norm(x, (N,), w, b, eps=1e-5)
  return torch.nn.functional.rms_norm(x, (N,), w, eps=1e-5) + b


def main():
  print(open(os.path.join(DIR, "COMPILER")).read().strip(), torch.cuda.get_device_name())
  rows, ok = [], True
  for case in ("layer_norm_bf16", "rms_norm_bf16"):
    sys.path.insert(0, os.path.join(DIR, case))
    module = __import__(f"{case}_torch")
    module.load(os.path.join(DIR, case))
    g = torch.Generator(device="cuda").manual_seed(0)
    r = lambda *s: torch.randn(*s, device="cuda", generator=g).to(torch.bfloat16)
    x, w, b, dy = r(*SHAPE), 1 + 0.1 * r(N), 0.1 * r(N), r(*SHAPE)
    xs, ws, bs = (t.detach().double().requires_grad_() for t in (x, w, b))
    want_y = reference(case, xs, ws, bs)
    want = [want_y] + list(torch.autograd.grad(want_y, (xs, ws, bs), dy.double()))
    section = f"{case.replace('_bf16', '')} bf16 {list(SHAPE)}"
    print(f"\n{section}", flush=True)
    if case == "layer_norm_bf16":
      theirs = lambda x, w, b: torch.nn.functional.layer_norm(x, (N,), w, b, eps=1e-5)
    else:
      theirs = lambda x, w, b: torch.nn.functional.rms_norm(x, (N,), w, eps=1e-5) + b
    times = {}
    for label, fn in (("ours (pallasc sm_90a, torch op with autograd)", getattr(module, case)),
                      ("torch", theirs)):
      xi, wi, bi = (t.detach().clone().requires_grad_() for t in (x, w, b))
      y = fn(xi, wi, bi)
      grads = torch.autograd.grad(y, (xi, wi, bi), dy, retain_graph=True)
      got = [y] + list(grads)
      errs = [bench.normwise(gt.float(), wt) for gt, wt in zip(got, want)]
      good = max(errs) <= 1e-2 and all(bool(torch.isfinite(t.float()).all()) for t in got)
      if label.startswith("ours"):
        ok &= good
      print(f"  {label}: y dx dw db normwise errors {' '.join(f'{e:.1e}' for e in errs)} "
            f"vs float64 ({'ok' if good else 'MISMATCH'})", flush=True)
      bwd = lambda: torch.autograd.grad(y, (xi, wi, bi), dy, retain_graph=True)
      fwd = lambda: fn(xi, wi, bi)
      times[label] = (bench.time_stream([bwd], 5), bench.time_stream([fwd], 5))
      if os.environ.get("PROFILE"):  # each kernel's time in the backward
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
          for _ in range(10):
            bwd()
          torch.cuda.synchronize()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=6), flush=True)
      print(f"  {label}: backward {statistics.median(times[label][0]):.3f} ms, "
            f"forward {statistics.median(times[label][1]):.3f} ms", flush=True)
    tb = statistics.median(times["torch"][0])
    for label, (tbwd, tfwd) in times.items():
      med = statistics.median(tbwd)
      # Bytes a backward must move at least: x, dy, dx (bf16).
      rows.append((f"{section} backward", label, med, 3 * 2 * x.numel() / (med * 1e-3) / 1e9, tb / med))
    del x, dy, xs, want, want_y
    torch.cuda.empty_cache()
  bench.ratio_table(rows, "vs torch's backward", "x", "norm_bwd.md")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
