#!/usr/bin/env python3
"""Step 1 of the decode-attention check, where pallasc is built
(prepare_decode.sh runs it): exports the pallas_call of JAX's
decode_attention.gqa (one query row per head, grouped-query heads, the
sequence split in k_splits parts whose partial results the function then
combines outside the kernel) and of JAX's paged_attention (the same, K/V
gathered from pages through a block table) at each shape of SHAPES, and
compiles each for sm_90a into OUT_DIR/<case>/.

usage: export_decode.py OUT_DIR
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental.pallas.ops.gpu import decode_attention, paged_attention  # noqa: E402
from pallasc_jax import export  # noqa: E402

# (batch, kv sequence length): K and V hold 0.5 GiB at every length.
# DECODE_SHAPES="2x2048,...": others (small ones for compute-sanitizer).
SHAPES = [tuple(int(v) for v in shape.split("x"))
          for shape in os.environ.get("DECODE_SHAPES", "128x1024,16x8192,4x32768,1x131072")
          .split(",")]
HEADS_Q, HEADS_KV, HEAD_DIM = 32, 8, 128
PARAMS = dict(block_k=128, k_splits=16)  # JAX's defaults for gqa
PAGE_SIZE = 16
PAGED_PARAMS = dict(pages_per_compute_block=8, k_splits=16)  # paged_attention's defaults


def gqa(q, k, v):
  return decode_attention.gqa(q, k, v, **PARAMS)


def paged(q, k_pages, v_pages, block_tables, lengths):
  return paged_attention.paged_attention(q, k_pages, v_pages, block_tables, lengths,
                                         **PAGED_PARAMS)


def main():
  out_root = sys.argv[1]
  pallasc = os.environ.get("PALLASC", os.path.join(ROOT, "build", "bin", "pallasc"))
  for b, s in SHAPES:
    case = f"gqa_b{b}_s{s}"
    out = os.path.join(out_root, case)
    os.makedirs(out, exist_ok=True)
    args = [jax.ShapeDtypeStruct((b, HEADS_Q, HEAD_DIM), jnp.bfloat16),
            jax.ShapeDtypeStruct((b, s, HEADS_KV, HEAD_DIM), jnp.bfloat16),
            jax.ShapeDtypeStruct((b, s, HEADS_KV, HEAD_DIM), jnp.bfloat16)]
    mlir, spec = export(gqa, *args).write(out)
    json.dump({"kind": "gqa", "batch": b, "seq": s, "heads_q": HEADS_Q, "heads_kv": HEADS_KV,
               "head_dim": HEAD_DIM, **PARAMS}, open(os.path.join(out, "case.json"), "w"))
    subprocess.run([pallasc, mlir, "--spec", spec, "-t", "sm_90a", "-o",
                    os.path.join(out, "sm_90a")], check=True)
    print(f"{case:24s} sm_90a ok")
    # The same sequences in pages of PAGE_SIZE rows, as many pages as rows.
    case = f"paged_b{b}_s{s}"
    out = os.path.join(out_root, case)
    os.makedirs(out, exist_ok=True)
    pages = b * s // PAGE_SIZE
    args = [jax.ShapeDtypeStruct((b, HEADS_Q, HEAD_DIM), jnp.bfloat16),
            jax.ShapeDtypeStruct((HEADS_KV, pages, PAGE_SIZE, HEAD_DIM), jnp.bfloat16),
            jax.ShapeDtypeStruct((HEADS_KV, pages, PAGE_SIZE, HEAD_DIM), jnp.bfloat16),
            jax.ShapeDtypeStruct((b, s // PAGE_SIZE), jnp.int32),
            jax.ShapeDtypeStruct((b,), jnp.int32)]
    mlir, spec = export(paged, *args).write(out)
    json.dump({"kind": "paged", "batch": b, "seq": s, "heads_q": HEADS_Q, "heads_kv": HEADS_KV,
               "head_dim": HEAD_DIM, "page_size": PAGE_SIZE, **PAGED_PARAMS},
              open(os.path.join(out, "case.json"), "w"))
    subprocess.run([pallasc, mlir, "--spec", spec, "-t", "sm_90a", "-o",
                    os.path.join(out, "sm_90a")], check=True)
    print(f"{case:24s} sm_90a ok")


if __name__ == "__main__":
  main()
