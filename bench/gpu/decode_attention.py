#!/usr/bin/env python3
"""Decode-attention check, step 2 (step 1: bench/gpu/prepare_decode.sh):
JAX's decode_attention.gqa and paged_attention kernels (one query row per
head, 32 query heads on 8 K/V heads, D = 128, bf16, the K/V sequence split
in k_splits parts; paged: pages of 16 rows in a shuffled block table), as
pallasc compiled them, beside JAX's own build of the same pallas_call (its
Triton lowering, on this GPU) on the same operands, at each exported
sequence length. Memory-bound: reported as bandwidth (the bytes the kernel
must move: K, V, q and its outputs, once) against a device-to-device copy
measured in the same run (bytes read + written).

Correctness first, per case: our outputs (each split's unnormalized o, its
row sums l and maxima m) against JAX's kernel's, and the splits combined
as the functions combine them against a float64 attention of the same q, K, V.
Every output starts as NaN. Times are kernel times from torch.profiler
(CUPTI records JAX's launches too), four input sets (2 GiB, over the L2)
rotated; ours also by events around batches of launches (bench.py's
method). (JAX's calls timed by events around chained calls in one jitted
function came out 40 % slower than its kernel: XLA's work around it.)
Prints a markdown table; writes it to $OUT/decode_attention.md when OUT is set.
"""
import json
import math
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "python")]
import bench  # noqa: E402

DIR = os.environ.get("DECODE_DIR", os.path.join(ROOT, ".device", "decode"))


def kernel_ms(calls, names, reps=20):
  """Mean device time (ms) per call of the GPU kernels whose names contain
  one of `names` (all kernels with `names` empty), from the profiler: the
  calls run `reps` times each, rotated, under torch.profiler (CUPTI sees
  JAX's launches as well as ours). None where it recorded none."""
  from torch.autograd import DeviceType
  for call in calls:
    call()
  torch.cuda.synchronize()
  with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    for _ in range(reps):
      for call in calls:
        call()
    torch.cuda.synchronize()
  total = 0.0
  for e in prof.events():
    if e.device_type != DeviceType.CUDA or (names and not any(n in e.name for n in names)):
      continue
    total += getattr(e, "device_time", None) or e.cuda_time
  return total / 1e3 / (reps * len(calls)) if total else None


def copy_bandwidth():
  src = torch.randn(2 ** 28, device="cuda")  # 1 GiB
  dst = torch.empty_like(src)
  t = statistics.median(bench.time_stream([lambda: dst.copy_(src)], 10))
  return 2 * src.numel() * 4 / (t * 1e-3) / 1e9, t


def jax_kernel(c):
  """JAX's own pallas_call of the case's function at its shapes, bound as a
  function of the kernel's operands; and the whole function."""
  import jax
  import jax.numpy as jnp
  from jax.experimental.pallas.ops.gpu import decode_attention, paged_attention
  from pallasc_jax.trace import find_pallas_call, trace
  b, s, hq, hkv, d = c["batch"], c["seq"], c["heads_q"], c["heads_kv"], c["head_dim"]
  S = jax.ShapeDtypeStruct
  if c["kind"] == "gqa":
    fn = lambda q, k, v: decode_attention.gqa(q, k, v, block_k=c["block_k"],
                                              k_splits=c["k_splits"])
    args = [S((b, hq, d), jnp.bfloat16), S((b, s, hkv, d), jnp.bfloat16),
            S((b, s, hkv, d), jnp.bfloat16)]
  else:
    fn = lambda q, kp, vp, t, n: paged_attention.paged_attention(
        q, kp, vp, t, n, pages_per_compute_block=c["pages_per_compute_block"],
        k_splits=c["k_splits"])
    pages, ps = b * s // c["page_size"], c["page_size"]
    args = [S((b, hq, d), jnp.bfloat16), S((hkv, pages, ps, d), jnp.bfloat16),
            S((hkv, pages, ps, d), jnp.bfloat16), S((b, s // ps), jnp.int32),
            S((b,), jnp.int32)]
  eqn = find_pallas_call(trace(fn, *args))
  return lambda *a: eqn.primitive.bind(*a, **eqn.params), fn


def combine(o, l, m, axis):
  """The functions' combine of the splits (`axis`), in float64."""
  o, l, m = o.double(), l.double(), m.double()
  mx = m.amax(dim=axis, keepdim=True)
  corr = torch.exp(m - mx)
  return (o * corr[..., None]).sum(axis) / (l * corr).sum(axis)[..., None]


def make_set(c, gen):
  """One input set: (the function's arguments, the kernel's operands as the
  function makes them, the kernel's outputs (NaN), the float64 attention
  [B, Hkv, G, D] (computed when called), the kernel's outputs combined
  into the same shape)."""
  b, s, hq, hkv, d, sp = (c[k] for k in ("batch", "seq", "heads_q", "heads_kv", "head_dim",
                                           "k_splits"))
  g = hq // hkv
  bf, dev = torch.bfloat16, "cuda"
  nan = lambda *shape, dtype=torch.float32: torch.full(shape, float("nan"), device=dev,
                                                         dtype=dtype)
  q = torch.randn(b, hq, d, device=dev, dtype=bf, generator=gen)
  if c["kind"] == "gqa":
    k = torch.randn(b, s, hkv, d, device=dev, dtype=bf, generator=gen)
    v = torch.randn(b, s, hkv, d, device=dev, dtype=bf, generator=gen)
    # Heads grouped, K/V per head in k_splits parts, as gqa makes them.
    ops = (q.reshape(b, hkv, g, d).contiguous(),
           k.transpose(1, 2).reshape(b, hkv, sp, s // sp, d).contiguous(),
           v.transpose(1, 2).reshape(b, hkv, sp, s // sp, d).contiguous())
    outs = (nan(b, hkv, sp, g, d, dtype=bf), nan(b, hkv, sp, g), nan(b, hkv, sp, g))
    args = (q, k, v)
    heads = lambda: (k.transpose(1, 2), v.transpose(1, 2))  # [B, Hkv, S, D]
    combined = lambda: combine(*outs, axis=2)
  else:
    ps = c["page_size"]
    pages = b * s // ps
    kp = torch.randn(hkv, pages, ps, d, device=dev, dtype=bf, generator=gen)
    vp = torch.randn(hkv, pages, ps, d, device=dev, dtype=bf, generator=gen)
    table = torch.randperm(pages, device=dev, generator=gen).int().reshape(b, s // ps)
    lengths = torch.full((b,), s, device=dev, dtype=torch.int32)
    qp = torch.zeros(b, hkv, 16, d, device=dev, dtype=bf)  # padded to block_h rows
    qp[:, :, :g] = q.reshape(b, hkv, g, d)
    ops = (qp, kp, vp, table.reshape(b, sp, -1).contiguous(), lengths.reshape(b, 1))
    outs = (nan(b, sp, hkv, 16, d, dtype=bf), nan(b, sp, hkv, 16), nan(b, sp, hkv, 16))
    args = (q, kp, vp, table, lengths)
    heads = lambda: tuple(pages_[:, table.long()].permute(1, 0, 2, 3, 4).reshape(b, hkv, s, d)
                          for pages_ in (kp, vp))  # gathered
    combined = lambda: combine(*(t[:, :, :, :g] for t in outs), axis=1)
  # gqa scales the logits by 1/sqrt(D) (its default); paged_attention does not.
  scale = 1 / math.sqrt(d) if c["kind"] == "gqa" else 1.0

  def reference():
    kd, vd = heads()
    p = torch.softmax(torch.einsum("bhgd,bhsd->bhgs", q.double().reshape(b, hkv, g, d),
                                   kd.double()) * scale, dim=-1)
    return torch.einsum("bhgs,bhsd->bhgd", p, vd.double())
  return args, ops, outs, reference, combined


def case(drv, name, rows, bw):
  import jax
  import jax.dlpack
  c = json.load(open(os.path.join(DIR, name, "case.json")))
  gen = torch.Generator(device="cuda").manual_seed(0)
  first = make_set(c, gen)
  args, ops, outs, reference, combined = first
  want = reference()
  kern = bench.OurKernel(drv, os.path.join(DIR, name, "sm_90a"))
  # (A batch of one is no grid axis: the kernel's arrays lack that dim.)
  bind = lambda ts: kern.bind(*[t.reshape(p["shape"]) for t, p in zip(ts, kern.params)])
  bind((*ops, *outs))()
  torch.cuda.synchronize()
  # (Padding rows of paged's q are zeros; every output element is written.)
  written = all(bool(torch.isfinite(t).all()) for t in outs)
  err = float(((combined() - want).abs() / (1 + want.abs())).max())
  del want
  bound, whole = jax_kernel(c)
  jax_outs = jax.block_until_ready(jax.jit(bound)(*[jax.dlpack.from_dlpack(t) for t in ops]))
  diffs = [float(((x.double() - torch.from_dlpack(y).double()).abs() /
                  (1 + torch.from_dlpack(y).double().abs())).max())
           for x, y in zip(outs, jax_outs)]
  del jax_outs
  ok = written and err < 2e-2 and max(diffs) < 2e-2
  print(f"{name}: every element written {written}; combined vs float64 {err:.1e}; "
        f"o, l, m vs JAX's kernel {', '.join(f'{x:.1e}' for x in diffs)} "
        f"({'ok' if ok else 'MISMATCH'})")
  sets = [first[:3]] + [make_set(c, gen)[:3] for _ in range(3)]
  moved = sum(t.numel() * t.element_size() for t in ops) + \
      sum(t.numel() * t.element_size() for t in outs)
  # Kernel time from the profiler (a call of JAX's is its kernel and
  # whatever XLA runs around it); ours also by events around batches.
  ours = [bind((*o, *x)) for _, o, x in sets]
  kernel = kern.m["launch"]["function"]
  jit_bound, jit_whole = jax.jit(bound), jax.jit(whole)
  jax_ops = [[jax.dlpack.from_dlpack(t) for t in o] for _, o, _ in sets]
  jax_args = [[jax.dlpack.from_dlpack(t) for t in a] for a, _, _ in sets]
  times = {
      "ours (pallasc sm_90a)": kernel_ms(ours, [kernel]),
      "JAX Pallas (Triton), the same pallas_call": kernel_ms(
          [lambda a=a: jit_bound(*a) for a in jax_ops], [c["kind"] == "gqa" and "mha_forward"
                                                       or "paged_attention"]),
      "JAX's whole function (every kernel it runs)": kernel_ms(
          [lambda a=a: jit_whole(*a) for a in jax_args], []),
  }
  events = statistics.median(bench.time_stream(ours, 10))
  anchor = times["JAX Pallas (Triton), the same pallas_call"]
  b, s, hq, hkv, d = c["batch"], c["seq"], c["heads_q"], c["heads_kv"], c["head_dim"]
  for label, med in times.items():
    if med is None:
      rows.append(f"| {name} | {label} | not recorded by the profiler | | | |")
      continue
    gbs = moved / (med * 1e-3) / 1e9
    note = f" (events: {events:.4f})" if label.startswith("ours") else ""
    rows.append(f"| {name} (B={b}, S_kv={s}, {hq}/{hkv} heads, D={d}) | {label} "
                f"| {med:.4f}{note} | {gbs:.0f} | {gbs / bw:.2f} | "
                f"{anchor / med if anchor else float('nan'):.2f}x |")
  return ok


def main():
  print(open(os.path.join(DIR, "COMPILER")).read().strip(), torch.cuda.get_device_name())
  drv = bench.Driver()
  bw, t = copy_bandwidth()
  rows = [f"| device-to-device copy, 1 GiB | torch copy_ | {t:.4f} | {bw:.0f} | 1.00 | |"]
  ok = True
  for name in sorted(os.listdir(DIR)):
    if os.path.isdir(os.path.join(DIR, name)):
      try:
        ok &= case(drv, name, rows, bw)
      except Exception as e:  # noqa: BLE001 (reported; the others still run)
        print(f"{name}: {type(e).__name__}: {e}")
        ok = False
      torch.cuda.empty_cache()
  table = ["| case | implementation | median ms | GB/s | of copy bandwidth | vs JAX's kernel |",
           "|---|---|---|---|---|---|"] + rows
  print("\n".join(table))
  if os.environ.get("OUT"):
    open(os.path.join(os.environ["OUT"], "decode_attention.md"), "w").write("\n".join(table) + "\n")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
