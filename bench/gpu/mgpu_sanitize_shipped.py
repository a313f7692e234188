#!/usr/bin/env python3
"""One launch of our sm_90a build of one of JAX's shipped Pallas:MGPU
kernels at its small size (prepared by bench/gpu/prepare_mgpu.sh:
ragged_dot, transposed_ragged_dot, hopper_mixed_type_matmul or
hopper_matmul_cluster), checked
against a torch reference, without JAX; for compute-sanitizer:

  compute-sanitizer --tool memcheck --error-exitcode 9 \\
      python3 bench/gpu/mgpu_sanitize_shipped.py ragged_dot
"""
import glob
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402


def groups_of(rows, sizes):
  """The group of each of `rows` rows, groups of `sizes` in order."""
  return torch.repeat_interleave(torch.arange(len(sizes), device="cuda"), sizes.long(),
                                 output_size=rows)


def ragged_dot():
  lhs = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
  rhs = torch.randn(2, 256, 256, device="cuda", dtype=torch.bfloat16)
  sizes = torch.tensor([100, 156], device="cuda", dtype=torch.int32)
  g = groups_of(256, sizes)
  want = torch.einsum("mk,mkn->mn", lhs.float(), rhs.float()[g])
  return {"lhs": lhs, "rhs": rhs, "group_sizes": sizes}, (256, 256), want


def transposed_ragged_dot():
  lhs = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
  rhs = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
  sizes = torch.tensor([100, 156], device="cuda", dtype=torch.int32)
  g = groups_of(256, sizes)
  want = torch.stack([lhs.float()[g == i].T @ rhs.float()[g == i] for i in range(2)])
  # What the function derives before its kernel (block_k 64): the groups'
  # starts, ends, blocks of K and first block's start.
  ends = torch.cumsum(sizes, 0).int()
  starts = ends - sizes
  block_starts = starts // 64 * 64
  blocks = ((ends + 63) // 64 * 64 - block_starts) // 64
  derived = {"in1": starts, "in2": ends, "in3": blocks.int(), "in4": block_starts.int()}
  return {"lhs": lhs, "rhs": rhs, "group_sizes": sizes, **derived}, (2, 256, 256), want


def hopper_mixed_type_matmul():
  a = torch.randint(-8, 9, (256, 256), device="cuda", dtype=torch.int8)
  b = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
  return {"a": a, "b": b}, (256, 256), a.float() @ b.float()


def hopper_matmul_cluster():
  a = torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
  b = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
  return {"a": a, "b": b}, (512, 512), a.float() @ b.float()


case = sys.argv[1]
art = os.path.join(HERE, "..", "..", ".device", "mgpu", case, "sm_90a")
manifest = json.load(open(glob.glob(os.path.join(art, "*.manifest.json"))[0]))
inputs, shape, want = globals()[case]()
out = torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
tensors = []
for p in manifest["parameters"]:
  if p["role"] == "output":
    tensors.append(out)
  elif p["name"] in inputs:
    tensors.append(inputs[p["name"]])
  else:
    raise SystemExit(f"{case}: input {p['name']} has no value here")
drv = bench.Driver()
bench.OurKernel(drv, art).bind(*tensors)()
torch.cuda.synchronize()
err = ((out.float() - want).abs() / (1 + want.abs())).max().item()
print(f"{case} ({'x'.join(map(str, shape))}): max error {err:.1e}")
sys.exit(0 if err < 2e-2 else 1)
