#!/usr/bin/env python3
"""Pallas:MGPU GPU check, step 2 (step 1: bench/gpu/prepare_mgpu.sh). For
each plgpu kernel of test/Python/Inputs/mgpu_cases.py that prepare_mgpu.sh
exported and compiled: runs our sm_90a cubin (loaded with bench.py's ctypes
harness) and JAX's own compilation of the same function (Mosaic GPU) on
the same random inputs, compares every element (and the --emit torch op
of our build, run in a process without JAX), then times both with
bench.py's method (events around batches of launches; four input sets
rotated, more than L2 holds, for the matmul). Prints a markdown table and
writes it to $OUT/mgpu.md when OUT is set. Arguments pick groups of
cases (main() lists them); none runs all.
"""
import os
import statistics
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "test", "Python", "Inputs"), os.path.join(ROOT, "python")]
os.environ["PALLASC_REAL_GPU"] = "1"  # mgpu_shipped: ask this GPU, fake nothing
import bench  # noqa: E402  (its ctypes launcher and timers)
import ctypes  # noqa: E402
import glob  # noqa: E402
import json  # noqa: E402
import jax  # noqa: E402
import ml_dtypes  # noqa: E402
import mgpu_cases  # noqa: E402
import mgpu_shipped  # noqa: E402
from pallasc_jax import kernel_operands  # noqa: E402

DIR = os.path.join(ROOT, ".device", "mgpu")
rows = []


def jax_fn(case):
  module = mgpu_cases if hasattr(mgpu_cases, case) else mgpu_shipped
  return jax.jit(getattr(module, case))


_NP = {"i8": np.int8, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "i32": np.int32}


def run_host_vs_jax(case, inputs):
  """Our host build (its run_range through ctypes, every element of the
  output first NaN) against JAX's own GPU run of the same function."""
  art = os.path.join(DIR, case, "host")
  m = json.load(open(glob.glob(os.path.join(art, "*.manifest.json"))[0]))
  lib = ctypes.CDLL(glob.glob(os.path.join(art, "*.so"))[0])
  fn = jax_fn(case)
  names = getattr(mgpu_cases, case, None) or getattr(mgpu_shipped, case)
  names = names.__code__.co_varnames[:names.__code__.co_argcount]
  by_name = dict(zip(names, inputs))
  arrays = []
  for p in m["parameters"]:
    if p["role"] == "input":
      arrays.append(np.ascontiguousarray(by_name[p["name"]]))
    else:
      arrays.append(np.full(p["shape"], np.nan, _NP[p["dtype"]]))
  entry = getattr(lib, m["launch"]["entry"])
  entry.argtypes = [ctypes.c_int64, ctypes.c_int64] + [ctypes.c_void_p] * len(arrays)
  entry(0, m["launch"]["work_items"], *[a.ctypes.data for a in arrays])
  got = torch.from_numpy(arrays[-1].astype(np.float32))
  want = np.asarray(jax.device_get(fn(*[jax.numpy.asarray(x) for x in inputs])))
  return compare(f"{case} (our host build)", got, torch.from_numpy(want.astype(np.float32)),
                 2e-2)


def run_host_cases():
  rng = np.random.default_rng(0)
  qkv = lambda: [rng.uniform(-1, 1, (1, 256, 2, 128)).astype(np.float16) for _ in range(3)]
  ok = run_host_vs_jax("warp_specialized", [rng.uniform(-1, 1, (64, 64)).astype(np.float16)])
  for case in ("attention", "attention_causal", "attention_pipeline"):
    ok &= run_host_vs_jax(case, qkv())
  ok &= run_host_vs_jax("hopper_matmul", [
      rng.uniform(-1, 1, (256, 512)).astype(ml_dtypes.bfloat16),
      rng.uniform(-1, 1, (512, 512)).astype(ml_dtypes.bfloat16)])
  ok &= run_host_vs_jax("hopper_mixed_type_matmul", [
      (rng.integers(1, 9, (256, 256)) * rng.choice([-1, 1], (256, 256))).astype(np.int8),
      rng.uniform(-1, 1, (256, 256)).astype(ml_dtypes.bfloat16)])
  ok &= run_host_vs_jax("ragged_dot", [
      rng.uniform(-1, 1, (256, 256)).astype(ml_dtypes.bfloat16),
      rng.uniform(-1, 1, (2, 256, 256)).astype(ml_dtypes.bfloat16),
      np.array([100, 156], np.int32)])
  return ok


def compare(case, got, want, tol):
  got, want = got.double().cpu(), want.double().cpu()
  assert torch.isfinite(got).all(), f"{case}: non-finite (unwritten) elements"
  err = float(((got - want).abs() / (1 + want.abs())).max())
  ok = err <= tol
  print(f"{case}: ours vs JAX's own GPU run on all {got.numel()} elements: "
        f"max error {err:.1e} ({'ok' if ok else 'MISMATCH'})")
  return ok


def run_warp_specialized(drv):
  """Two warpgroups: one copies, the other multiplies and stores (sm_90a,
  the kernel's own schedule), against JAX's own run."""
  x = torch.randn(64, 64, device="cuda", dtype=torch.float16)
  out = torch.full_like(x, float("nan"))
  k = bench.OurKernel(drv, os.path.join(DIR, "warp_specialized", "sm_90a"))
  k.bind(x, out)()
  torch.cuda.synchronize()
  want = bench.from_jax(jax_fn("warp_specialized")(bench.to_jax(x)))
  return compare("warp_specialized (sm_90a, 2 warpgroups)", out, want, 2e-2)


def run_add_one(drv):
  x = torch.randn(128, device="cuda")
  x = torch.where(x == 0, torch.ones_like(x), x)
  out = torch.full_like(x, float("nan"))
  k = bench.OurKernel(drv, os.path.join(DIR, "add_one", "sm_90a"))
  k.bind(x, out)()
  torch.cuda.synchronize()
  want = bench.from_jax(jax_fn("add_one")(bench.to_jax(x)))
  return compare("add_one", out, want, 0.0)


BUILDS = (("sm_90a", "ours (pallasc sm_90a, the kernel's own schedule)"),
          ("sm_90a_in_order", "ours (pallasc sm_90a, in-order form, loads staged)"))


def run_matmul(drv, case="matmul", fn="matmul", n=4096, dtype=torch.float16):
  """Each of our builds of the exported plgpu matmul `fn` (directory
  `case`) against JAX's own compilation of the same function and cuBLAS,
  timed in one run."""
  sets = []
  for _ in range(4):
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    sets.append((a, b, torch.full((n, n), float("nan"), device="cuda", dtype=dtype)))
  f = jax_fn(fn)
  want = bench.from_jax(f(bench.to_jax(sets[0][0]), bench.to_jax(sets[0][1])))
  ok = True
  timed = []
  for build, impl in BUILDS:
    if not os.path.isdir(os.path.join(DIR, case, build)):
      continue  # (no in-order form of emit_pipeline's rings)
    k = bench.OurKernel(drv, os.path.join(DIR, case, build))
    launches = [k.bind(*s) for s in sets]
    for s in sets:
      s[2].fill_(float("nan"))
    launches[0]()
    torch.cuda.synchronize()
    ok &= compare(f"{case} ({build})", sets[0][2], want, 2e-2)
    timed.append((impl, launches))
  flop = 2 * n ** 3
  times = [(impl, bench.time_stream(launches, 20)) for impl, launches in timed]
  batch, args = bench.jax_chain(f, [(bench.to_jax(a), bench.to_jax(b)) for a, b, _ in sets], 20)
  theirs = bench.time_jax(batch, args)
  cublas = bench.time_stream([lambda a=a, b=b, c=c: torch.matmul(a, b, out=c)
                              for a, b, c in sets], 20)
  times += [("JAX Mosaic GPU (same plgpu.kernel)", theirs), ("cuBLAS (torch.matmul)", cublas)]
  for impl, t in times:
    med = statistics.median(t)
    rows.append((f"{fn} {str(dtype).split('.')[-1]} {n}^3 (mgpu_cases.{fn})", impl, med,
                 flop / med / 1e9, statistics.median(theirs) / med))
  return ok


def run_small(drv, case, shapes, dtype):
  """Our sm_90a build of `case` at a small size against JAX's own run."""
  xs = [torch.randn(*shape, device="cuda", dtype=dtype) for shape in shapes]
  want = bench.from_jax(jax_fn(case)(*[bench.to_jax(x) for x in xs]))
  out = torch.full(tuple(want.shape), float("nan"), device="cuda", dtype=dtype)
  bench.OurKernel(drv, os.path.join(DIR, case, "sm_90a")).bind(*xs, out)()
  torch.cuda.synchronize()
  return compare(f"{case} {shapes} (sm_90a)", out, want, 2e-2)


def run_shipped(drv, case, fn, sets, label=None, flop=None):
  """Our sm_90a build of JAX's `fn` (directory `case`) on each input set
  (fn's arguments as torch tensors) against JAX's own run of the first;
  with `label`, both timed over the sets rotated."""
  f = jax_fn(fn)
  jsets = [[bench.to_jax(x) for x in xs] for xs in sets]
  want = bench.from_jax(f(*jsets[0]))
  outs = [torch.full(tuple(want.shape), float("nan"), device="cuda", dtype=want.dtype)
          for _ in sets]
  k = bench.OurKernel(drv, os.path.join(DIR, case, "sm_90a"))
  def operands(xs, js):
    """The kernel's operands as the function computes them (its arguments
    as they are, and what it derives from them: group starts...)."""
    out = []
    for o in kernel_operands(getattr(mgpu_shipped, fn), *js):
      same = [x for x, j in zip(xs, js) if o is j]
      out.append(same[0] if same else bench.from_jax(o))
    return out

  launches = [k.bind(*operands(x, j), o) for x, j, o in zip(sets, jsets, outs)]
  launches[0]()
  torch.cuda.synchronize()
  shape = "x".join(str(d) for d in sets[0][0].shape)
  ok = compare(f"{case} [{shape}, ...] (sm_90a)", outs[0], want, 2e-2)
  if label:
    ours = bench.time_stream(launches, 10)
    batch, args = bench.jax_chain(f, [tuple(js) for js in jsets], 10)
    theirs = bench.time_jax(batch, args)
    for impl, t in (("ours (pallasc sm_90a, the kernel's own schedule)", ours),
                    ("JAX Mosaic GPU (same call)", theirs)):
      med = statistics.median(t)
      rows.append((label, impl, med, flop / med / 1e9, statistics.median(theirs) / med))
  return ok


def int8s(*shape):
  """Non-zero int8s in [-8, 8]."""
  mag = torch.randint(1, 9, shape, device="cuda", dtype=torch.int8)
  return mag * (torch.randint(0, 2, shape, device="cuda", dtype=torch.int8) * 2 - 1)


def group_sizes(m, g):
  """g group sizes summing to m: random boundaries (JAX's benchmark's)."""
  bounds = torch.sort(torch.randint(0, m, (g - 1,))).values
  edges = torch.cat([torch.tensor([0]), bounds, torch.tensor([m])])
  return (edges[1:] - edges[:-1]).to(torch.int32).cuda()


def run_ragged_and_mixed(drv):
  """JAX's ragged dots and int8 x bf16 matmul: small, then at the sizes
  of JAX's own benchmarks of them, beside JAX's own compilation."""
  bf, f16 = torch.bfloat16, torch.float16
  ok = run_shipped(drv, "ragged_dot", "ragged_dot", [[
      torch.randn(256, 256, device="cuda", dtype=bf),
      torch.randn(2, 256, 256, device="cuda", dtype=bf),
      torch.tensor([100, 156], device="cuda", dtype=torch.int32)]])
  ok &= run_shipped(drv, "hopper_mixed_type_matmul", "hopper_mixed_type_matmul",
                    [[int8s(256, 256), torch.randn(256, 256, device="cuda", dtype=bf)]])
  ok &= run_shipped(drv, "transposed_ragged_dot", "transposed_ragged_dot", [[
      torch.randn(256, 256, device="cuda", dtype=bf),
      torch.randn(256, 256, device="cuda", dtype=bf),
      torch.tensor([100, 156], device="cuda", dtype=torch.int32)]])
  m, k, n, g = 16384, 2048, 16384, 16
  sets = [[torch.randn(m, k, device="cuda", dtype=f16),
           torch.randn(g, k, n, device="cuda", dtype=f16), group_sizes(m, g)] for _ in range(2)]
  ok &= run_shipped(drv, "ragged_dot_bench", "ragged_dot_bench", sets,
                    f"ragged_dot f16 m={m} k={k} n={n} 16 groups", 2 * m * k * n)
  del sets
  k, m, n = 16384, 2048, 2048
  sets = [[torch.randn(k, m, device="cuda", dtype=f16),
           torch.randn(k, n, device="cuda", dtype=f16), group_sizes(k, g)] for _ in range(4)]
  ok &= run_shipped(drv, "transposed_ragged_dot_bench", "transposed_ragged_dot_bench", sets,
                    f"transposed_ragged_dot f16 k={k} m={m} n={n} 16 groups", 2 * m * k * n)
  m, n, k = 4096, 8192, 4096
  sets = [[int8s(m, k), torch.randn(k, n, device="cuda", dtype=bf)] for _ in range(4)]
  ok &= run_shipped(drv, "mixed_type_matmul_bench", "hopper_mixed_type_matmul_bench", sets,
                    f"hopper_mixed_type_matmul int8 x bf16 {m}x{n}x{k}", 2 * m * n * k)
  return ok


def run_small_attention(drv):
  """JAX's attention (plain, causal, through emit_pipeline_warp_specialized)
  at [1, 256, 2, 128]: our sm_90a build against JAX's own run."""
  ok = True
  for case in ("attention", "attention_causal", "attention_pipeline"):
    q, k, v = (torch.randn(1, 256, 2, 128, device="cuda", dtype=torch.float16) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    bench.OurKernel(drv, os.path.join(DIR, case, "sm_90a")).bind(q, k, v, out)()
    torch.cuda.synchronize()
    want = bench.from_jax(jax_fn(case)(*[bench.to_jax(t) for t in (q, k, v)]))
    ok &= compare(f"{case} [1,256,2,128] (sm_90a)", out, want, 2e-2)
  return ok


def run_hopper_matmul(drv, case, n, fn="hopper_matmul_bench"):
  """JAX's hopper_matmul_mgpu (three warpgroups, persistent; `fn` picks the
  configuration) exported and built for sm_90a against JAX's own
  compilation of the same call and cuBLAS, bf16 n^3, four input sets
  rotated."""
  sets = []
  for _ in range(4):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    sets.append((a, b, torch.full((n, n), float("nan"), device="cuda", dtype=torch.bfloat16)))
  f = jax_fn(fn)
  k = bench.OurKernel(drv, os.path.join(DIR, case, "sm_90a"))
  launches = [k.bind(*x) for x in sets]
  launches[0]()
  torch.cuda.synchronize()
  want = bench.from_jax(f(bench.to_jax(sets[0][0]), bench.to_jax(sets[0][1])))
  ok = compare(f"{case} (sm_90a)", sets[0][2], want, 2e-2)
  ours = bench.time_stream(launches, 10)
  batch, args = bench.jax_chain(f, [(bench.to_jax(a), bench.to_jax(b)) for a, b, _ in sets], 10)
  theirs = bench.time_jax(batch, args)
  cublas = bench.time_stream([lambda a=a, b=b, c=c: torch.matmul(a, b, out=c)
                              for a, b, c in sets], 10)
  for impl, t in (("ours (pallasc sm_90a, the kernel's own schedule)", ours),
                  ("JAX Mosaic GPU (same call)", theirs), ("cuBLAS (torch.matmul)", cublas)):
    med = statistics.median(t)
    label = "hopper_matmul" + (" in clusters of 2" if "cluster" in fn else "")
    rows.append((f"{label} bf16 {n}^3", impl, med, 2 * n ** 3 / med / 1e9,
                 statistics.median(theirs) / med))
  return ok


def run_attention(drv, case, fn, d, causal):
  """JAX's attention_mgpu exported and built for sm_90a (the kernel's own
  schedule) against JAX's own compilation of the same call, B 4, S 4096,
  16 heads."""
  b, s, h = 4, 4096, 16
  sets = []
  for _ in range(2):
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.float16) for _ in range(3))
    sets.append((q, k, v, torch.full((b, s, h, d), float("nan"), device="cuda",
                                     dtype=torch.float16)))
  f = jax_fn(fn)
  kern = bench.OurKernel(drv, os.path.join(DIR, case, "sm_90a"))
  launches = [kern.bind(*x) for x in sets]
  launches[0]()
  torch.cuda.synchronize()
  want = bench.from_jax(f(*[bench.to_jax(t) for t in sets[0][:3]]))
  ok = compare(f"{case} (sm_90a)", sets[0][3], want, 2e-2)
  flop = 4 * b * h * s * s * d // (2 if causal else 1)
  ours = bench.time_stream(launches, 10)
  batch, args = bench.jax_chain(f, [tuple(bench.to_jax(t) for t in x[:3]) for x in sets], 10)
  theirs = bench.time_jax(batch, args)
  for impl, t in (("ours (pallasc sm_90a, the kernel's own schedule)", ours),
                  ("JAX Mosaic GPU (same call)", theirs)):
    med = statistics.median(t)
    rows.append((f"{fn} f16 D={d} B*H=64 S=4096{' causal' if causal else ''}", impl, med,
                 flop / med / 1e9, statistics.median(theirs) / med))
  return ok


TORCH_OP_CHECK = r"""
import os, sys, torch
art = sys.argv[1]
sys.path.insert(0, art)
import mm_torch  # written by pallasc --emit torch; no JAX in this process
mm_torch.load(art)
assert "jax" not in sys.modules
a, b = torch.load(sys.argv[2])
a, b = a.cuda(), b.cuda()
out = torch.ops.pallasc.mm(a, b)
torch.save(out.cpu(), sys.argv[3])
# Time per call as a PyTorch user sees it (allocation and launch included).
times = []
for _ in range(30):
  s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
  torch.cuda.synchronize(); s.record()
  for _ in range(20):
    torch.ops.pallasc.mm(a, b)
  e.record(); e.synchronize(); times.append(s.elapsed_time(e) / 20)
print(f"matmul torch op: {sorted(times)[15]:.3f} ms per call (median)")
"""


def run_torch_op(n=4096):
  """Our matmul as a PyTorch op (no JAX at run time) vs JAX's own run."""
  import subprocess
  import tempfile
  g = torch.Generator().manual_seed(1)
  a = torch.randn(n, n, generator=g, dtype=torch.float32).half()
  b = torch.randn(n, n, generator=g, dtype=torch.float32).half()
  with tempfile.TemporaryDirectory() as tmp:
    inp, outp = os.path.join(tmp, "in.pt"), os.path.join(tmp, "out.pt")
    torch.save((a, b), inp)
    subprocess.run([sys.executable, "-c", TORCH_OP_CHECK,
                    os.path.join(DIR, "matmul", "sm_90a"), inp, outp], check=True)
    got = torch.load(outp)
  want = bench.from_jax(jax_fn("matmul")(bench.to_jax(a.cuda()), bench.to_jax(b.cuda())))
  return compare("matmul torch op", got, want, 2e-2)


def main():
  """Every group, or (arguments) those named: basic, hopper, attention,
  ragged (the ragged dots and the int8 x bf16 matmul), host."""
  print(open(os.path.join(DIR, "COMPILER")).read().strip())
  print(torch.cuda.get_device_name(), "jax", jax.__version__)
  only = set(sys.argv[1:])
  run = lambda group: not only or group in only
  drv = bench.Driver()
  ok = True
  if run("basic"):
    ok &= run_add_one(drv) & run_warp_specialized(drv)
    for fn in ("matmul", "pipelined_matmul"):
      ok &= run_matmul(drv, fn, fn)
      ok &= run_matmul(drv, f"{fn}_bf16_8192", fn, 8192, torch.bfloat16)
    ok &= run_small_attention(drv)
    ok &= run_small(drv, "hopper_matmul", [(256, 512), (512, 512)], torch.bfloat16)
    ok &= run_small(drv, "pipelined_add", [(4096, 128), (4096, 128)], torch.float32)
    ok &= run_small(drv, "reduce_store", [(256, 64)], torch.float32)
  if run("hopper"):
    ok &= run_small(drv, "hopper_matmul_cluster", [(512, 256), (256, 512)], torch.bfloat16)
    for n in (4096, 8192):
      ok &= run_hopper_matmul(drv, f"hopper_matmul_{n}", n)
      ok &= run_hopper_matmul(drv, f"hopper_matmul_cluster_{n}", n, "hopper_matmul_cluster_bench")
  if run("attention"):
    for d in (128, 64):
      ok &= run_attention(drv, f"attention_d{d}", "attention_bench", d, False)
      ok &= run_attention(drv, f"attention_causal_d{d}", "attention_bench_causal", d, True)
  if run("ragged"):
    ok &= run_ragged_and_mixed(drv)
  if run("host"):
    ok &= run_torch_op() & run_host_cases()
  bench.ratio_table(rows, "JAX time / this", "", "mgpu.md")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
