#!/usr/bin/env python3
"""GQA attention check, step 2 (step 1: bench/gpu/prepare_attention_gqa.sh):
flash attention forward (bf16, B*H = 64 query heads, S = 4096, D = 128)
as multi-head attention and as grouped-query attention (4 query heads per
K/V head, 16 K/V heads), ours beside torch SDPA (cuDNN backend, and its
enable_gqa form) in the same run. Both of ours are checked against SDPA's
math backend in f32 (normwise 1e-2; the output starts as NaN); timing is
bench.py's (events around batches, L2 flushed by the inputs' size). Prints
a markdown table, and writes it to $OUT/attention_gqa.md when OUT is set.
"""
import math
import os
import statistics
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

DIR = os.path.join(HERE, "..", "..", ".device", "gqa")
B, HQ, L, D, GROUP = 4, 16, 4096, 128, 4


def main():
  print(open(os.path.join(DIR, "COMPILER")).read().strip(), torch.cuda.get_device_name())
  drv = bench.Driver()
  g = torch.Generator(device="cuda").manual_seed(0)
  rnd = lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16, generator=g)
  q = rnd(B, HQ, L, D)
  kv = {"mha": (rnd(B, HQ, L, D), rnd(B, HQ, L, D)),
        "gqa4": (rnd(B, HQ // GROUP, L, D), rnd(B, HQ // GROUP, L, D))}
  flops = 4 * B * HQ * L * L * D
  rows, ok, times = [], True, {}
  for name, (k, v) in kv.items():
    heads = k.shape[1]
    kr, vr = (t.repeat_interleave(HQ // heads, dim=1) for t in (k, v))
    with sdpa_kernel(SDPBackend.MATH):
      want = torch.cat([torch.nn.functional.scaled_dot_product_attention(
          q[b:b + 1].float(), kr[b:b + 1].float(), vr[b:b + 1].float()) for b in range(B)])
    # Ours: [B*H, L, D] arrays (K/V heads b // GROUP for query head b).
    o = torch.full((B * HQ, L, D), float("nan"), device="cuda", dtype=torch.bfloat16)
    kern = bench.OurKernel(drv, os.path.join(DIR, name))
    launch = kern.bind(q.reshape(B * HQ, L, D), k.reshape(-1, L, D), v.reshape(-1, L, D), o)
    launch()
    torch.cuda.synchronize()
    err = bench.normwise(o.reshape(B, HQ, L, D), want)
    good = err <= 1e-2
    ok &= good
    print(f"ours ({name}): normwise error {err:.1e} vs SDPA math in f32 ({'ok' if good else 'MISMATCH'})")
    times[f"ours ({name})"] = bench.time_stream([launch], 5)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
      if name == "mha":
        f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)
      else:
        f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
      try:
        err = bench.normwise(f(), want)
        print(f"torch SDPA cuDNN ({name}): normwise error {err:.1e}")
        times[f"torch SDPA cuDNN ({name})"] = bench.time_stream([f], 5)
      except Exception as e:  # noqa: BLE001 (the anchor's own failure is reported)
        print(f"torch SDPA cuDNN ({name}): {type(e).__name__}: {e}")
  mha = statistics.median(times["ours (mha)"])
  for label, t in times.items():
    med = statistics.median(t)
    rows.append((f"attention bf16 B*H={B * HQ} S={L} D={D}", label, med, flops / med / 1e9, mha / med))
  bench.ratio_table(rows, "vs ours (mha)", "x", "attention_gqa.md")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
