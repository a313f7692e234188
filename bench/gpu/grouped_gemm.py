#!/usr/bin/env python3
"""Grouped-GEMM check, step 2 (step 1: bench/gpu/prepare_grouped.sh): the
grouped GEMMs of bench/kernels (grouped_gemm[_rows]_bf16_g*: a mixture of
experts' layer, M = 16384 tokens in uneven groups, K = N = 4096, group
sizes and tiles by scalar prefetch; _rows tiles each group from its own
first row) against torch._grouped_mm in the same
run, and against one dense cuBLAS GEMM of the same M, N, K (torch.matmul)
for scale. Our sm_90a build and our sm_80 code (its PTX assembled for
sm_90) both run. Every element is checked against a float64 product per
group first (and that it was written: the output starts as NaN); timing
rotates four input sets with bench.py's method. Prints a markdown table,
and writes it to $OUT/grouped_gemm.md when OUT is set.

GROUPED_SMALL=1: only correctness, on the small builds (.device/grouped/
small*: examples/grouped_matmul, _rows and _sequential, 520 rows in
5 groups, one empty), for compute-sanitizer.
"""
import json
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

DIR = os.environ.get("GROUPED_DIR", os.path.join(HERE, "..", "..", ".device", "grouped"))


def group_sizes(m, groups, gen, empty=()):
  """Uneven sizes summing to m, multiples of 8 (torch._grouped_mm's
  alignment), one group about 4x another; `empty` groups get none."""
  w = torch.rand(groups, generator=gen) * 3 + 1
  for g in empty:
    w[g] = 0
  sizes = (w / w.sum() * (m // 8)).floor().long() * 8
  sizes[int(w.argmax())] += m - int(sizes.sum())
  return [int(s) for s in sizes]


def metadata(sizes, tm, tiles, own_rows):
  """The scalar-prefetch tables: group_ids and, per tile, m_tile_ids (the
  128-row tiles each group touches, `own_rows` false) or first_rows (each
  group tiled from its own first row), padded to `tiles` with group
  len(sizes) (no group: its blocks lie outside w and it stores nothing);
  group_offsets."""
  offsets = [0]
  for s in sizes:
    offsets.append(offsets[-1] + s)
  gids, mtiles = [], []
  for g, (lo, hi) in enumerate(zip(offsets, offsets[1:])):
    starts = range(lo, hi, tm) if own_rows else range(lo // tm, -(-hi // tm)) if hi > lo else ()
    for t in starts:
      gids.append(g)
      mtiles.append(t)
  assert len(gids) <= tiles, (len(gids), tiles)
  gids += [len(sizes)] * (tiles - len(gids))
  mtiles += [0] * (tiles - len(mtiles))
  i32 = lambda v: torch.tensor(v, dtype=torch.int32, device="cuda")
  return i32(gids), i32(mtiles), i32(offsets)


def check(got, x, w, offsets, label):
  worst, written = 0.0, bool(torch.isfinite(got).all())
  for g in range(w.shape[0]):
    lo, hi = int(offsets[g]), int(offsets[g + 1])
    if hi > lo:
      want = x[lo:hi].double() @ w[g].double()
      worst = max(worst, float(((got[lo:hi].double() - want).abs() / (1 + want.abs())).max()))
  ok = written and worst <= 2e-2
  print(f"{label}: all {got.numel()} elements vs float64: max error {worst:.1e}"
        f"{'' if written else ', some not written'} ({'ok' if ok else 'MISMATCH'})")
  return ok


def case(drv, name, rows, small=False):
  spec = json.load(open(os.path.join(DIR, name, "spec.json")))
  ins = {p["name"]: p for p in spec["inputs"]}
  m, k = ins["x"]["shape"]
  groups, _, n = ins["w"]["shape"]
  own_rows = "first_rows" in ins
  tm = 128 if own_rows else ins["x"]["block_shape"][0]
  tiles = ins["group_ids"]["shape"][0]
  gen = torch.Generator().manual_seed(groups)
  sizes = group_sizes(m, groups, gen, empty=(1,) if small else ())
  gids, mtiles, offsets = metadata(sizes, tm, tiles, own_rows)
  g = torch.Generator(device="cuda").manual_seed(0)
  sets = []
  for _ in range(1 if small else 4):
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(groups, k, n, device="cuda", dtype=torch.bfloat16, generator=g) / 8
    sets.append((x, w, torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)))
  ok, times = True, {}
  builds = [("sm_90a", "ours, sm_90a"), ("sm_80_on_sm_90", "ours, sm_80 code")]
  for build, label in builds:
    path = os.path.join(DIR, name, build)
    if not os.path.isdir(path):
      continue
    kern = bench.OurKernel(drv, path)
    for s in sets:
      s[2].fill_(float("nan"))
    launches = [kern.bind(gids, mtiles, offsets, *s) for s in sets]
    launches[0]()
    torch.cuda.synchronize()
    ok &= check(sets[0][2], sets[0][0], sets[0][1], offsets, f"{name} ({label})")
    if not small:
      times[label] = bench.time_stream(launches, 10)
  if small:
    return ok
  ends = offsets[1:].contiguous()
  grouped = lambda x, w: torch._grouped_mm(x, w, offs=ends, out_dtype=torch.bfloat16)
  try:
    ok &= check(grouped(sets[0][0], sets[0][1]), sets[0][0], sets[0][1], offsets,
                f"{name} (torch._grouped_mm)")
    times["torch._grouped_mm"] = bench.time_stream(
        [lambda x=x, w=w: grouped(x, w) for x, w, _ in sets], 10)
  except Exception as e:  # noqa: BLE001 (the anchor's own failure is reported)
    print(f"torch._grouped_mm: {type(e).__name__}: {e}")
  dense = [(x, w[0], z) for x, w, z in sets]
  times["cuBLAS, one dense GEMM (torch.matmul)"] = bench.time_stream(
      [lambda a=a, b=b, c=c: torch.matmul(a, b, out=c) for a, b, c in dense], 10)
  anchor = statistics.median(times.get("torch._grouped_mm", [float("nan")]))
  flops = 2 * m * n * k
  for label, t in times.items():
    med = statistics.median(t)
    rows.append((f"{name} ({groups} groups, {m}x{n}x{k}, sizes {min(sizes)}..{max(sizes)})",
                 label, med, flops / med / 1e9, anchor / med))
  return ok


def main():
  print(open(os.path.join(DIR, "COMPILER")).read().strip(), torch.cuda.get_device_name())
  drv = bench.Driver()
  small = os.environ.get("GROUPED_SMALL") == "1"
  rows, ok = [], True
  for name in sorted(os.listdir(DIR)):
    if os.path.isdir(os.path.join(DIR, name)) and name.startswith("small") == small:
      ok &= case(drv, name, rows, small)
  if rows:
    bench.ratio_table(rows, "vs torch._grouped_mm", "x", "grouped_gemm.md")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
