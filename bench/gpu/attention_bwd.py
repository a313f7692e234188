#!/usr/bin/env python3
"""Attention training check, step 2 (step 1: bench/gpu/prepare_attention_bwd.sh):
the backward pass of JAX's flash attention (mha, exported with its
Pallas backward by pallasc_jax --vjp; bf16, B=4 H=16 S=4096, D=128 and 64,
causal and not) as chain.json connects our kernels (forward, then the
delta preprocessing and the fused dK/dV + dQ kernel), beside torch SDPA's
backward with the cuDNN and flash backends pinned, and JAX's own build of
the same function (Triton), in the same run. The mgpu_* cases are JAX's
Pallas:MGPU attention_mgpu (f16, unscaled): its delta einsum runs as a
synthesized kernel, JAX's own build is Mosaic GPU's.

Checked: dQ, dK and dV of ours against float64 autograd of plain
attention on four (batch, head) pairs, normwise 2e-2 (bf16 gradients), and
every element finite (outputs start as NaN). Timed: our two backward
kernels (preprocess + backward) as one step, SDPA's autograd backward
(torch.autograd.grad of its output), JAX's jitted VJP minus nothing (its
backward kernels and its XLA glue); bench.py's events around batches, L2
flushed by the inputs' size. Where CASE/sm_90a_torch holds the chain built
with --emit torch, the same backward through the forward op's autograd
(torch.autograd.grad, as SDPA's), checked the same way and under
torch.compile(fullgraph=True) (TORCH_COMPILE=0: not), with what a call
costs its caller: CPU time to issue it and wall time with a synchronize
(PROFILE_HOST=1: where that CPU time goes, by cProfile). Work: 2.5x the forward's 4*B*H*S^2*D
(half of it causal). Prints a markdown table; $OUT/attention_bwd.md.
"""
import glob
import importlib.util
import json
import math
import os
import statistics
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bench  # noqa: E402

bench.REPS = int(os.environ.get("REPS", "10"))

# The chain runner alone (pallasc_jax's package imports JAX's internals).
_spec = importlib.util.spec_from_file_location(
    "pallas_chain", os.path.join(ROOT, "python", "pallasc_jax", "chain.py"))
chain = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(chain)

DIR = os.environ.get("ATTN_BWD_DIR", os.path.join(ROOT, ".device", "attn_bwd"))
# What prepare_attention_bwd.sh exported (SHAPE: B,S,H).
B, L, H = (int(v) for v in open(os.path.join(DIR, "SHAPE")).read().split(","))
TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def print_ptxas_reports(case_dir):
  """What ptxas said of each sm_90a kernel of the case (the manifests'
  launch.ptxas): registers, spills, and its notes' codes (C7517: a
  warpgroup.wait it inserted; C7512/C7518: wgmma it serialized)."""
  for manifest in sorted(glob.glob(os.path.join(case_dir, "sm_90a", "*", "*.manifest.json"))):
    report = json.load(open(manifest))["launch"].get("ptxas", {}).get("sm_90a")
    if not report:
      continue
    codes = [n.split(")")[0] + ")" for n in report["wgmma_notes"]]
    print(f"  ptxas {os.path.basename(os.path.dirname(manifest))}: "
          f"{report['registers']} registers, spills {report['spill_store_bytes']}/"
          f"{report['spill_load_bytes']} bytes, notes {' '.join(codes) or 'none'}", flush=True)


def our_chain(drv, case_dir, build):
  """run_kernel for chain.run over the chain pallasc compiled into
  case_dir/BUILD/ (BUILD: sm_90a, triton, or sm_90a_unfused: the chain as
  exported, --scan-fusion=never): each kernel's outputs allocated NaN-filled,
  its launcher kept (entry directory -> launcher) for timing."""
  launchers = {}

  def run_kernel(entry, operands):
    kdir = os.path.join(case_dir, build, entry["directory"])
    spec = json.load(open(os.path.join(
        chain.source_dir(case_dir, os.path.join(case_dir, build), entry["directory"]),
        "spec.json")))
    ins = [t.contiguous() for t in operands]
    # An output aliased to an input is that input's buffer (JAX's
    # input_output_aliases), updated in place.
    aliased = {int(o): int(i) for i, o in spec.get("input_output_aliases", {}).items()}
    outs = [ins[aliased[n]] if n in aliased else
            torch.full(o["shape"], float("nan"), device="cuda",
                       dtype=TORCH_DTYPES[o["dtype"]])
            for n, o in enumerate(spec["outputs"])]
    tensors = ins + outs
    if build.startswith("sm_90a"):
      f = bench.OurKernel(drv, kdir).bind(*tensors)
    else:
      f, _ = bench.ours_triton(kdir, *tensors)
    f()
    launchers[entry["directory"]] = f
    return outs
  return run_kernel, launchers


def host_and_wall_ms(f, n=10):
  """What a caller of f sees per call: the CPU time to issue it (the GPU
  kept busy meanwhile, so nothing waits) and the wall time of f plus a
  synchronize (median of n)."""
  issue, wall = [], []
  for _ in range(n):
    torch.cuda.synchronize()
    torch.cuda._sleep(int(20e-3 * 2.0e9))
    t0 = time.perf_counter()
    f()
    issue.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
  for _ in range(n):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    f()
    torch.cuda.synchronize()
    wall.append(time.perf_counter() - t0)
  return statistics.median(issue) * 1e3, statistics.median(wall) * 1e3


def torch_op_function(case_dir):
  """The chain built with --emit torch (CASE/sm_90a_torch/): its
  FUNCTION_torch.py loaded, autograd registered; None where not built."""
  d = os.path.join(case_dir, "sm_90a_torch")
  modules = glob.glob(os.path.join(d, "*_torch.py"))
  if not modules:
    return None
  name = f"chain_{os.path.basename(case_dir)}"
  spec = importlib.util.spec_from_file_location(name, modules[0])
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module  # (torch.compile looks its globals up by name)
  spec.loader.exec_module(module)
  module.load(d)
  kinds = sorted({m.cuda_kernel for m in module._modules.values()})
  print(f"  torch ops' CUDA kernels: {', '.join(kinds)}", flush=True)
  return module.function


def reference(q, k, v, do, causal, pairs, scale):
  """float64 dQ, dK, dV of plain attention for (batch, head) pairs."""
  out = []
  for b, h in pairs:
    qs, ks, vs = (t[b, :, h, :].double().requires_grad_() for t in (q, k, v))
    s = qs @ ks.T * scale
    if causal:
      s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
    o = torch.softmax(s, -1) @ vs
    out.append(torch.autograd.grad(o, (qs, ks, vs), do[b, :, h, :].double()))
  return out


def report(times, label, t):
  times[label] = t
  print(f"  {label}: {statistics.median(t):.3f} ms (median of {len(t)})", flush=True)


def main():
  # (attention_train's Pallas:MGPU cases ask this GPU its CUDA version.)
  os.environ.setdefault("PALLASC_REAL_GPU", "1")
  import attention_train
  print(open(os.path.join(DIR, "COMPILER")).read().strip(), torch.cuda.get_device_name())
  drv = bench.Driver()
  rows, ok = [], True
  cases = os.environ.get("CASES", " ".join(attention_train.CASES)).split()
  for case in cases:
    fn, D, causal, options = attention_train.case(case)
    dtype = TORCH_DTYPES[options["dtype"]]
    scale = options["scale"] or 1 / math.sqrt(D)
    section = (f"attention backward {options['dtype']} {'causal ' if causal else ''}"
               f"B*H={B * H} S={L} D={D} ({case})")
    print(f"\n{section}", flush=True)
    flops = 2.5 * 4 * B * H * L * L * D / (2 if causal else 1)
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, do = (torch.randn(B, L, H, D, device="cuda", generator=g).to(dtype)
                   for _ in range(4))
    pairs = sorted({(b % B, h % H) for b, h in [(0, 0), (1, 5), (2, 10), (3, 15)]})
    t0 = time.time()
    want = reference(q, k, v, do, causal, pairs, scale)
    print(f"  float64 reference: {time.time() - t0:.1f} s", flush=True)
    times = {}
    case_dir = os.path.join(DIR, case)
    print_ptxas_reports(case_dir)
    # ANCHORS=0: ours and cuDNN's; none: ours alone (compute-sanitizer).
    anchors = os.environ.get("ANCHORS", "1") not in ("0", "none")
    only_ours = os.environ.get("ANCHORS") == "none"
    builds = list(options["targets"] if anchors else ("sm_90a",))
    if os.path.isdir(os.path.join(case_dir, "sm_90a_unfused")):
      builds.append("sm_90a_unfused")
    for target in builds:
      label = {"sm_90a": "ours (pallasc sm_90a)", "triton": "ours via triton target",
               "sm_90a_unfused": "ours, chain as exported (--scan-fusion=never)"}[target]
      try:
        manifest = chain.load(os.path.join(case_dir, target))
        run_kernel, launchers = our_chain(drv, case_dir, target)
        got = chain.run(manifest, [q, k, v], [do], run_kernel)
        torch.cuda.synchronize()
        errs = []
        for name, grad in zip("QKV", got["gradients"]):
          if not torch.isfinite(grad.float()).all():
            errs.append(float("inf"))
            continue
          for (b, h), w in zip(pairs, want):
            errs.append(bench.normwise(grad[b, :, h, :], w["QKV".index(name)]))
        err = max(errs)
        good = err <= 2e-2
        ok &= good or not target.startswith("sm_90a")
        print(f"  {label}: dQ dK dV max normwise error {err:.1e} vs float64 "
              f"({'ok' if good else 'MISMATCH'})", flush=True)
        backward = [launchers[e["directory"]] for e in manifest["kernels"]
                    if e["role"] == "backward"]
        step = lambda: [f() for f in backward]
        report(times, label, bench.time_stream([step], 3))
      except Exception as e:  # noqa: BLE001 (a failure is reported)
        print(f"  {label}: {type(e).__name__}: {str(e)[:300]}", flush=True)
        ok &= not target.startswith("sm_90a")

    # The same chain through its PyTorch op (--emit torch): the backward
    # autograd runs for the forward op's output, as training calls it.
    calls = {}
    label = "ours through the torch op's autograd"
    try:
      function = torch_op_function(case_dir)
      if function is None:
        raise RuntimeError("not built")
      qa, ka, va = (t.detach().requires_grad_() for t in (q, k, v))
      o = function(qa, ka, va)
      f = lambda: torch.autograd.grad(o, (qa, ka, va), do, retain_graph=True)
      grads = f()
      err = max(bench.normwise(grads[i][b, :, h, :], w[i])
                for i in range(3) for (b, h), w in zip(pairs, want))
      good = err <= 2e-2
      ok &= good
      print(f"  {label}: dQ dK dV max normwise error {err:.1e} vs float64 "
            f"({'ok' if good else 'MISMATCH'})", flush=True)
      report(times, label, bench.time_stream([f], 3))
      calls[label] = host_and_wall_ms(f)
      if os.environ.get("PROFILE_HOST"):
        import cProfile
        import pstats
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(20):
          f()
        profile.disable()
        torch.cuda.synchronize()
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(15)
      # torch.compile(fullgraph=True) of a loss over the op: its backward
      # (the aliased accumulator functionalized) gives the same gradients.
      if os.environ.get("TORCH_COMPILE", "1") == "1":
        import torch._dynamo as dynamo
        dynamo.reset()
        loss = torch.compile(lambda a, b, c: (function(a, b, c).float() * do.float()).sum(),
                             fullgraph=True)
        for t in (qa, ka, va):
          t.grad = None
        loss(qa, ka, va).backward()
        cerr = max(bench.normwise(t.grad[b, :, h, :], w[i])
                   for i, t in enumerate((qa, ka, va)) for (b, h), w in zip(pairs, want))
        ok &= cerr <= 2e-2
        print(f"  {label} under torch.compile(fullgraph=True): max normwise error "
              f"{cerr:.1e} ({'ok' if cerr <= 2e-2 else 'MISMATCH'})", flush=True)
      del qa, ka, va, o, grads
    except Exception as e:  # noqa: BLE001
      print(f"  {label}: {type(e).__name__}: {str(e)[:300]}", flush=True)
      ok &= str(e) == "not built"

    qt, kt, vt = (t.transpose(1, 2).detach().requires_grad_() for t in (q, k, v))
    dot = do.transpose(1, 2)
    for backend, name in [(SDPBackend.CUDNN_ATTENTION, "cuDNN"),
                          (SDPBackend.FLASH_ATTENTION, "flash")][:0 if only_ours else 2 if anchors else 1]:
      label = f"torch SDPA {name} backward"
      try:
        with sdpa_kernel(backend):
          o = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal,
                                                               scale=scale)
          f = lambda: torch.autograd.grad(o, (qt, kt, vt), dot, retain_graph=True)
          grads = f()
          err = max(bench.normwise(grads[i].transpose(1, 2)[b, :, h, :], w[i])
                    for i in range(3) for (b, h), w in zip(pairs, want))
          print(f"  {label}: max normwise error {err:.1e}", flush=True)
          report(times, label, bench.time_stream([f], 3))
          calls[label] = host_and_wall_ms(f)
      except Exception as e:  # noqa: BLE001
        print(f"  {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
    del qt, kt, vt
    for label, (issue, wall) in calls.items():
      print(f"  per call, {label}: {issue:.3f} ms to issue, {wall:.3f} ms with a "
            f"synchronize", flush=True)

    label = options["jax"]
    try:
      if not anchors:
        raise RuntimeError("skipped (ANCHORS=0)")
      import jax
      jq, jk, jv, jdo = (bench.to_jax(t) for t in (q, k, v, do))
      _, vjp = jax.vjp(fn, jq, jk, jv)
      bwd = jax.jit(lambda ct: vjp(ct))
      grads = bwd(jdo)
      err = max(bench.normwise(bench.from_jax(grads[i])[b, :, h, :], w[i])
                for i in range(3) for (b, h), w in zip(pairs, want))
      print(f"  {label}: max normwise error {err:.1e}", flush=True)
      batch, bargs = bench.jax_chain(lambda ct: vjp(ct), [(jdo,)], 3)
      report(times, label, bench.time_jax(batch, bargs))
    except Exception as e:  # noqa: BLE001
      print(f"  {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)

    cudnn = times.get("torch SDPA cuDNN backward")
    for label, t in times.items():
      med = statistics.median(t)
      rows.append((section, label, med, flops / med / 1e9,
                   (cudnn and statistics.median(cudnn) / med) or float("nan")))
    del q, k, v, do, want
    torch.cuda.empty_cache()
  bench.ratio_table(rows, "vs SDPA cuDNN backward", "x", "attention_bwd.md")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
