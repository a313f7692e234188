"""Exports Pallas:MGPU cases (mgpu_cases.py, and JAX's own kernels in
mgpu_shipped.py), runs each host build through pallas-run on random non-zero
inputs and compares every output element with a NumPy reference (JAX runs
plgpu kernels on GPUs only: its interpret mode refuses their collective
scratch). Each case's files go to OUT_DIR/CASE/.

usage: check_mgpu.py [--asan] OUT_DIR CASE...
  --asan: compile with --sanitize address and run under the ASan-built
          launcher (pallas-launch-asan) instead of pallas-run
"""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "..", "python")]
import jax  # noqa: E402
import mgpu_cases  # noqa: E402
import mgpu_shipped  # noqa: E402
from pallasc_jax import export, kernel_operands  # noqa: E402

f16, bf16, f32 = np.float16, ml_dtypes.bfloat16, np.float32


def _matmul(a, b, dtype=f16):
  return (a.astype(f32) @ b.astype(f32)).astype(dtype)


def _attention(causal):
  def ref(q, k, v):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    logits = np.einsum("bqhc,bkhc->bqhk", q, k)
    if causal:
      s = q.shape[1]
      keep = np.arange(s)[:, None] >= np.arange(s)[None, :]
      logits = np.where(keep[None, :, None, :], logits, -np.inf)
    w = np.exp(logits - logits.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return np.einsum("bqhk,bkhc->bqhc", w, v).astype(f16)
  return ref


def _ragged_dot(lhs, rhs, group_sizes):
  out, start = np.zeros((lhs.shape[0], rhs.shape[2]), f32), 0
  for g, n in enumerate(group_sizes):
    out[start:start + n] = lhs[start:start + n].astype(f32) @ rhs[g].astype(f32)
    start += n
  return out.astype(bf16)


def _transposed_ragged_dot(lhs, rhs, group_sizes):
  out, start = np.zeros((len(group_sizes), lhs.shape[1], rhs.shape[1]), f32), 0
  for g, n in enumerate(group_sizes):
    out[g] = lhs[start:start + n].astype(f32).T @ rhs[start:start + n].astype(f32)
    start += n
  return out.astype(bf16)


def _uniform(rng, shape, dtype):  # non-zero, either sign
  return (rng.uniform(0.5, 2.0, shape) * rng.choice([-1, 1], shape)).astype(dtype)


def _attention_inputs(rng):
  return [(rng.uniform(-1, 1, (1, 256, 2, 128))).astype(f16) for _ in range(3)]


# case: (module, inputs(rng) in the function's order, reference, tolerance
# relative to 1 + |want|)
CASES = {
    "add_one": (mgpu_cases, lambda r: [_uniform(r, (128,), f32)], lambda x: x + 1, 0),
    "matmul": (mgpu_cases, lambda r: [_uniform(r, (256, 512), f16), _uniform(r, (512, 256), f16)],
               _matmul, 2e-3),
    "pipelined_matmul": (mgpu_cases, lambda r: [_uniform(r, (256, 512), f16),
                                                _uniform(r, (512, 256), f16)], _matmul, 2e-3),
    "pipelined_add": (mgpu_cases, lambda r: [_uniform(r, (256, 128), f32),
                                             _uniform(r, (256, 128), f32)],
                      lambda x, y: x + y, 0),
    "reduce_store": (mgpu_cases, lambda r: [_uniform(r, (128, 64), f32)], lambda x: 2 * x, 0),
    "row_buffers": (mgpu_cases, lambda r: [_uniform(r, (2, 128), f32)], lambda x: 2 * x + 1, 0),
    "warp_specialized": (mgpu_cases, lambda r: [_uniform(r, (64, 64), f16)],
                         lambda x: _matmul(x, x.T), 2e-3),
    "attention": (mgpu_shipped, _attention_inputs, _attention(False), 2e-3),
    "attention_causal": (mgpu_shipped, _attention_inputs, _attention(True), 2e-3),
    "attention_pipeline": (mgpu_shipped, _attention_inputs, _attention(False), 2e-3),
    "hopper_matmul": (mgpu_shipped, lambda r: [_uniform(r, (256, 512), bf16),
                                               _uniform(r, (512, 512), bf16)],
                      lambda a, b: _matmul(a, b, bf16), 1e-2),
    "hopper_matmul_cluster": (mgpu_shipped, lambda r: [_uniform(r, (512, 256), bf16),
                                                       _uniform(r, (256, 512), bf16)],
                              lambda a, b: _matmul(a, b, bf16), 1e-2),
    "hopper_mixed_type_matmul": (
        mgpu_shipped, lambda r: [(r.integers(1, 9, (256, 256)) *
                                  r.choice([-1, 1], (256, 256))).astype(np.int8),
                                 _uniform(r, (256, 256), bf16)],
        lambda a, b: _matmul(a, b, bf16), 1e-2),
    "ragged_dot": (mgpu_shipped, lambda r: [_uniform(r, (256, 256), bf16),
                                            _uniform(r, (2, 256, 256), bf16),
                                            np.array([100, 156], np.int32)], _ragged_dot, 1e-2),
    "transposed_ragged_dot": (mgpu_shipped, lambda r: [_uniform(r, (256, 256), bf16),
                                                       _uniform(r, (256, 256), bf16),
                                                       np.array([100, 156], np.int32)],
                              _transposed_ragged_dot, 1e-2),
}


def npy(x):
  """pallas-run reads bf16 as its <u2 bit patterns."""
  return x.view(np.uint16) if x.dtype == bf16 else x


def check(case: str, out_dir: str, asan: bool):
  module, make_inputs, reference, tol = CASES[case]
  fn = getattr(module, case)
  inputs = make_inputs(np.random.default_rng(0))
  exported = export(fn, *[jax.ShapeDtypeStruct(x.shape, x.dtype) for x in inputs])
  mlir_path, spec_path = exported.write(out_dir)
  # The kernel's operands as the function computes them (its arguments,
  # and what it derives from them before the kernel: group starts...).
  in_paths = []
  for k, operand in enumerate(kernel_operands(fn, *inputs)):
    in_paths.append(os.path.join(out_dir, f"in{k}.npy"))
    np.save(in_paths[-1], npy(np.asarray(operand)))
  out_path = os.path.join(out_dir, "out0.npy")
  if asan:
    art = os.path.join(out_dir, "host-asan")
    subprocess.run(["pallasc", mlir_path, "--spec", spec_path, "-t", "host",
                    "--sanitize", "address", "-o", art], check=True)
    run = ["pallas-launch-asan", art]
  else:
    run = ["pallas-run", mlir_path, "--spec", spec_path]
  subprocess.run(run + ["--inputs", *in_paths, "--outputs", out_path], check=True)
  want = np.asarray(reference(*inputs))
  got = np.load(out_path)
  if want.dtype == bf16:
    got = got.view(bf16)
  assert got.shape == want.shape and got.dtype == want.dtype, (
      got.shape, got.dtype, want.shape, want.dtype)
  got, want = got.astype(np.float64), want.astype(np.float64)
  assert np.all(np.isfinite(got)), f"{case}: non-finite (unwritten) elements"
  err = np.max(np.abs(got - want) / (1 + np.abs(want)))
  assert err <= tol, f"{case}: max error {err:.2e} > {tol:.0e}"
  how = " (ASan)" if asan else ""
  print(f"{case}: matches NumPy on all {want.size} elements{how} (max error {err:.1e})")


args = sys.argv[1:]
asan = "--asan" in args
out_root, *cases = [a for a in args if a != "--asan"]
for name in cases:
  check(name, os.path.join(out_root, name), asan)
