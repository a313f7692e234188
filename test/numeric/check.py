#!/usr/bin/env python3
"""Runs a kernel through pallas-run (or pallas-launch on prebuilt artifacts)
on random non-zero inputs and compares every output element with an
independent NumPy reference.

usage: check.py CASE [--bin DIR] [--artifacts DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import ml_dtypes

BF16 = ml_dtypes.bfloat16
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONFORMANCE = os.path.join(
    os.environ.get("PALLAS_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared")),
    "conformance")
EXAMPLES = os.path.join(ROOT, "examples")


def nonzero_normal(rng, shape, dtype=np.float32):
    x = rng.standard_normal(shape).astype(np.float32)
    x[np.abs(x) < 1e-3] = 0.5
    return x.astype(dtype)


def bf16_bits(x):
    return x.astype(BF16).view(np.uint16)


def from_bf16_bits(x):
    return x.view(BF16).astype(np.float32)


E4M3 = ml_dtypes.float8_e4m3fn


def f8_bits(x):
    return x.astype(E4M3).view(np.uint8)


def matmul_f8_ref(scales, x, y):
    """scale_x * scale_y * (x @ y^T) on the f8 values, in float64."""
    xv = x.view(E4M3).astype(np.float64)
    yv = y.view(E4M3).astype(np.float64)
    return [(scales[0] * scales[1]) * (xv @ yv.T)]


def flash_attention_f8_inputs(rng, seq):
    """The per-tensor scales and two heads of f8 Q, K and V^T ([2, seq,
    128], [2, seq, 128], [2, 128, seq]) the f8 attention examples take."""
    return [np.array([0.9, 1.7, 1.3], np.float32),
            f8_bits(nonzero_normal(rng, (2, seq, 128))),
            f8_bits(nonzero_normal(rng, (2, seq, 128))),
            f8_bits(nonzero_normal(rng, (2, 128, seq)))]


def flash_attention_f8_ref(scales, q, k, vt):
    """softmax(dq dk q k^T / sqrt(128)) (dv v) in float64 on the f8 values
    (the probabilities unrounded: the kernel's rounding of them to f8 is
    within the case's tolerance)."""
    qv, kv, vtv = (a.view(E4M3).astype(np.float64) for a in (q, k, vt))
    s = np.einsum("bqd,bkd->bqk", qv * scales[0], kv * scales[1]) / np.sqrt(128)
    p = np.exp(s - s.max(-1, keepdims=True))
    return [(p / p.sum(-1, keepdims=True)) @ (np.swapaxes(vtv, 1, 2) * scales[2])]


def quantize_matmul_f8_ref(scales, x, w):
    """xq = f8(x * inv_scale) (ml_dtypes' rounding to nearest even of the
    f32 product), z = scale_x * scale_w * (xq @ w^T) in float64; xq
    compared as the f8 values."""
    xq = (from_bf16_bits(x) * scales[0]).astype(np.float32).astype(E4M3)
    wv = w.view(E4M3).astype(np.float64)
    return [(scales[1] * scales[2]) * (xq.astype(np.float64) @ wv.T),
            xq.astype(np.float64)]


def bf16_or_f8_bits(a):
    """Outputs in bf16 (uint16 bits) or f8E4M3FN (uint8 bits) as floats."""
    return from_bf16_bits(a) if a.dtype == np.uint16 else a.view(E4M3).astype(np.float64)


E5M2 = ml_dtypes.float8_e5m2


def f8_quantize_ref(scales, x):
    """ml_dtypes' roundings (to nearest even) of the bf16 values: to f8E4M3FN
    after the inverse scale (in f32), to f8E5M2 directly, and back."""
    xf = from_bf16_bits(x)
    q = (xf * scales[0]).astype(np.float32).astype(E4M3)
    g = x.view(BF16).astype(E5M2)
    return [q.view(np.uint8), g.view(np.uint8),
            q.astype(np.float32) * scales[1], g.astype(np.float16)]


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return [e / e.sum(axis=1, keepdims=True)]


def gather_oob_inputs(rng):
    idx = rng.integers(-20, 90, 16).astype(np.int32)
    idx[:4] = [-1, 64, 0, 63]  # both edges and just past them
    return [idx, nonzero_normal(rng, (64,))]


def gather_oob_ref(idx, x):
    ok = (idx >= 0) & (idx < 64)
    o = np.where(ok, x[np.clip(idx, 0, 63)], 0).astype(np.float32)
    o2 = np.zeros(64, np.int32)
    for lane, i in enumerate(idx):  # later lanes win, as in the loop order
        if 0 <= i < 64 and i % 2 == 0:
            o2[i] = lane + 1
    return [o, o2]


def ops_tour_ref(x):
    flat = x.reshape(1, 512)
    rc = np.cumsum(flat[:, ::-1], axis=1)[:, ::-1]
    return [np.cumsum(x, axis=1), np.argmax(x, axis=1).astype(np.int32), x.T,
            x.min(axis=0), np.concatenate([flat, rc], axis=0),
            x[0][None, :] + x[:, 3][:, None], x.T @ x]


def gather2d_inputs(rng):
    rows = rng.integers(0, 32, 8).astype(np.int32)
    rows[0] = 40  # past the end: reads 0
    cols = rng.integers(0, 16, 4).astype(np.int32)
    cols[1] = -3  # negative: reads 0
    return [nonzero_normal(rng, (32, 16)), rows, cols]


def gather2d_ref(x, rows, cols):
    def at(r, c):
        ok = (r >= 0) & (r < 32) & (c >= 0) & (c < 16)
        return np.where(ok, x[np.clip(r, 0, 31), np.clip(c, 0, 15)], 0).astype(np.float32)
    return [at(rows[:, None], np.arange(2, 10, 2)[None, :]),
            at(rows[:, None], cols[None, :])]


def matmul_bf16(x, y):
    return from_bf16_bits(x) @ from_bf16_bits(y)


def lane_stats_ref(s, m, l):
    """exp(s - m) / l with each row's statistics from the first of its
    128 lanes, in float64."""
    s, m, l = (x.astype(np.float64) for x in (s, m, l))
    return [np.exp(s - m[..., :1]) / l[..., :1]]


def lane_stats_input(rng, shape, low, high):
    """Row statistics in lane 0, drawn from [low, high); the other lanes
    hold other values from that range (TPU kernels replicate a row's
    value across them; here a slice of the wrong lane reads wrong)."""
    return rng.uniform(low, high, shape).astype(np.float32)


def scores_softmax_ref(q, k):
    """softmax(q k^T / 8) over each row, with the rows' max and sum, in
    float64 from the bf16 inputs."""
    s = np.einsum("hqd,hkd->hqk", from_bf16_bits(q).astype(np.float64),
                  from_bf16_bits(k).astype(np.float64)) / 8
    m = s.max(-1)
    e = np.exp(s - m[..., None])
    l = e.sum(-1)
    return [e / l[..., None], m, l]


def flash_attention_ref(q, k, v):
    """Causal attention with scale 1/sqrt(64), in float64 from the f16
    inputs; the kernel scales q in f16 (exact) and returns f16."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    s = np.einsum("bqd,bkd->bqk", q * 0.125, k)
    n = s.shape[-1]
    s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return [(p / p.sum(axis=-1, keepdims=True)) @ v]


def dma_pages_ref(pages, x):
    """Program i's pages, each 2x + 1, in reverse order in rows 32i..."""
    return [np.concatenate([2 * x[pages[i, p]] + 1 for i in range(4) for p in (3, 2, 1, 0)])]


def scratch_slots_ref(x):
    """test/Triton/Inputs/scratch_slots: per program, the sum over k of
    (k' + 1) x[k'] * x[k, 0, 0] with k' = 3 - k, and m[k, k mod 2] + n[k, :]
    summed = x[k, 1, k mod 2] + x[k, 0, 0]."""
    x64 = x.astype(np.float64)
    o = sum((4 - k) * x64[:, 3 - k] * x64[:, k, 0, 0][:, None, None] for k in range(4))
    q = np.stack([x64[:, k, 1, k % 2] + x64[:, k, 0, 0] for k in range(4)], axis=1)
    return [o, q]


def semaphore_flow_ref(x):
    """test/Triton/Inputs/semaphore_flow: [n, m, i, n + m] per program."""
    n = x.sum(axis=1)
    i = np.arange(x.shape[0])
    m = n - (i % 2)
    return [np.stack([n, m, i, n + m], axis=1).astype(np.int32)]


def layernorm_ref(x, w, b):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    return [(x64 - mean) / np.sqrt(var + 1e-5) * w + b]


def grouped_matmul_inputs(r, m=520, k=256, n=512, groups=5, tm=128):
    """examples/grouped_matmul: uneven group sizes (group 1 empty, so tiles
    straddle groups), the scalar-prefetch tables for them (every (group,
    row tile) pair; the rest name group `groups`, which stores nothing),
    then x and w as bf16 bits."""
    cuts = np.sort(r.choice(np.arange(1, m), groups - 2, replace=False))
    offsets = np.concatenate([[0, cuts[0]], cuts, [m]]).astype(np.int32)  # group 1 empty
    gids, mtiles = [], []
    for g in range(groups):
        lo, hi = offsets[g], offsets[g + 1]
        for t in range(lo // tm, -(-hi // tm)) if hi > lo else ():
            gids.append(g)
            mtiles.append(t)
    tiles = -(-m // tm) + groups - 1
    gids += [groups] * (tiles - len(gids))
    mtiles += [0] * (tiles - len(mtiles))
    return [np.array(gids, np.int32), np.array(mtiles, np.int32), offsets,
            bf16_bits(nonzero_normal(r, (m, k))), bf16_bits(nonzero_normal(r, (groups, k, n)))]


def grouped_matmul_rows_inputs(r, m=520, k=256, n=512, groups=5, tm=128):
    """examples/grouped_matmul_rows: as grouped_matmul_inputs, but each
    group tiled from its own first row (first_rows for m_tile_ids)."""
    gids, _, offsets, x, w = grouped_matmul_inputs(r, m, k, n, groups, tm)
    gids, firsts = [], []
    for g in range(groups):
        for first in range(offsets[g], offsets[g + 1], tm):
            gids.append(g)
            firsts.append(first)
    tiles = m // tm + groups
    gids += [groups] * (tiles - len(gids))
    firsts += [0] * (tiles - len(firsts))
    return [np.array(gids, np.int32), np.array(firsts, np.int32), offsets, x, w]


def grouped_matmul_ref(gids, mtiles, offsets, x, w):
    """Each group's rows times its matrix, in float64, rounded to bf16."""
    x64, w64 = from_bf16_bits(x).astype(np.float64), from_bf16_bits(w).astype(np.float64)
    out = np.zeros((x.shape[0], w.shape[2]))
    for g in range(w.shape[0]):
        out[offsets[g]:offsets[g + 1]] = x64[offsets[g]:offsets[g + 1]] @ w64[g]
    return [out.astype(np.float32).astype(BF16).astype(np.float32)]


# name: (folder, spec, inputs(rng), reference(*inputs), rtol, atol, decode)
CASES = {
    "add_vectors": (os.path.join(CONFORMANCE, "add_vectors"), "spec.json",
                    lambda r: [r.integers(1, 1000, 8).astype(np.int32),
                               r.integers(1, 1000, 8).astype(np.int32)],
                    lambda x, y: [x + y], 0, 0, None),
    "add_one": (os.path.join(CONFORMANCE, "add_one"), "spec.json",
                lambda r: [r.integers(1, 1000, 32).astype(np.int32)],
                lambda x: [x + 1], 0, 0, None),
    "matmul_relu": (os.path.join(CONFORMANCE, "matmul_relu"), "spec.json",
                    lambda r: [nonzero_normal(r, (1024, 1024)),
                               nonzero_normal(r, (1024, 1024))],
                    lambda x, y: [np.maximum(x @ y, 0)], 1e-4, 1e-3, None),
    "matmul_relu_vmap": (os.path.join(CONFORMANCE, "matmul_relu"), "spec_vmap.json",
                         lambda r: [nonzero_normal(r, (4, 1024, 1024)),
                                    nonzero_normal(r, (4, 1024, 1024))],
                         lambda x, y: [np.maximum(x @ y, 0)], 1e-4, 1e-3, None),
    "softmax": (os.path.join(CONFORMANCE, "softmax"), "spec.json",
                lambda r: [nonzero_normal(r, (4096, 1000))], softmax_ref,
                1e-5, 1e-7, None),
    "matmul_kloop": (os.path.join(CONFORMANCE, "matmul_kloop"), "spec.json",
                     lambda r: [bf16_bits(nonzero_normal(r, (4096, 4096))),
                                bf16_bits(nonzero_normal(r, (4096, 4096)))],
                     lambda x, y: [matmul_bf16(x, y)], 1e-2, 1e-2, from_bf16_bits),
    "matmul_accumulate": (os.path.join(CONFORMANCE, "matmul_accumulate"), "spec.json",
                          lambda r: [bf16_bits(nonzero_normal(r, (1024, 1024))),
                                     bf16_bits(nonzero_normal(r, (1024, 1024)))],
                          lambda x, y: [matmul_bf16(x, y)], 1e-4, 1e-3, None),
    "matmul_edges": (os.path.join(EXAMPLES, "matmul_edges"), "spec.json",
                     lambda r: [bf16_bits(nonzero_normal(r, (200, 136))),
                                bf16_bits(nonzero_normal(r, (136, 200)))],
                     lambda x, y: [matmul_bf16(x, y)], 1e-4, 1e-3, None),
    "edge_add2d": (os.path.join(EXAMPLES, "edge_add2d"), "spec.json",
                   lambda r: [nonzero_normal(r, (100, 70)), nonzero_normal(r, (100, 70))],
                   lambda x, y: [x + y], 1e-6, 0, None),
    "row_sum_arbitrary": (os.path.join(EXAMPLES, "row_sum_arbitrary"), "spec.json",
                          lambda r: [nonzero_normal(r, (100, 300))],
                          lambda x: [x.sum(axis=1)], 1e-5, 1e-5, None),
    "vmap_scale": (os.path.join(EXAMPLES, "vmap_scale"), "spec.json",
                   lambda r: [nonzero_normal(r, (5, 20)), nonzero_normal(r, (8,))],
                   # out_axes [1]: the batch axis is the output's second dim.
                   lambda x, w: [(x * np.tile(w, 3)[:20]
                                  + (np.arange(20) // 8)[None, :]).T],
                   1e-6, 1e-6, None),
    "inplace_add": (os.path.join(EXAMPLES, "inplace_add"), "spec.json",
                    lambda r: [nonzero_normal(r, (50,)), nonzero_normal(r, (50,))],
                    lambda x, y: [x + y], 1e-6, 0, None),
    "gather_oob": (os.path.join(EXAMPLES, "gather_oob"), "spec.json",
                   gather_oob_inputs, gather_oob_ref, 0, 0, None),
    "prefetch_rows": (os.path.join(EXAMPLES, "prefetch_rows"), "spec.json",
                      lambda r: [np.array([5, 0, 15, 5], np.int32),
                                 nonzero_normal(r, (16, 128))],
                      lambda rows, x: [2 * x[rows]], 1e-6, 0, None),
    "gather2d": (os.path.join(EXAMPLES, "gather2d"), "spec.json",
                 gather2d_inputs, gather2d_ref, 0, 0, None),
    "flash_attention_f16": (os.path.join(EXAMPLES, "flash_attention_f16"), "spec.json",
                            lambda r: [nonzero_normal(r, (2, 256, 64), np.float16)
                                       for _ in range(3)],
                            flash_attention_ref, 1e-2, 4e-3, None),
    "lane_stats": (os.path.join(EXAMPLES, "lane_stats"), "spec.json",
                   lambda r: [nonzero_normal(r, (2, 256, 256)),
                              lane_stats_input(r, (2, 256, 128), -1.0, 1.0),
                              lane_stats_input(r, (2, 256, 128), 0.5, 2.0)],
                   lane_stats_ref, 1e-5, 1e-6, None),
    "scores_softmax": (os.path.join(EXAMPLES, "scores_softmax"), "spec.json",
                       lambda r: [bf16_bits(nonzero_normal(r, (4, 128, 64))),
                                  bf16_bits(nonzero_normal(r, (4, 64, 64)))],
                       scores_softmax_ref, 1e-5, 1e-6, None),
    "batched_dot_f16": (os.path.join(EXAMPLES, "batched_dot_f16"), "spec.json",
                        lambda r: [nonzero_normal(r, (8, 64, 32), np.float16)
                                   for _ in range(2)],
                        lambda a, b: [np.einsum("bqd,bkd->bqk", a.astype(np.float64),
                                                b.astype(np.float64))], 1e-5, 1e-5, None),
    "layernorm": (os.path.join(EXAMPLES, "layernorm"), "spec.json",
                  lambda r: [nonzero_normal(r, (128, 256)) * 3 + 1, nonzero_normal(r, (256,)),
                             nonzero_normal(r, (256,))],
                  layernorm_ref, 1e-5, 1e-5, None),
    "matmul_f8": (os.path.join(EXAMPLES, "matmul_f8"), "spec.json",
                  lambda r: [np.array([0.37, 1.9], np.float32),
                             f8_bits(nonzero_normal(r, (256, 512))),
                             f8_bits(nonzero_normal(r, (512, 512)))],
                  matmul_f8_ref, 1e-2, 1e-2, from_bf16_bits),
    "flash_attention_f8": (os.path.join(EXAMPLES, "flash_attention_f8"), "spec.json",
                           lambda r: flash_attention_f8_inputs(r, 512),
                           flash_attention_f8_ref, 5e-2, 2e-2, from_bf16_bits),
    "quantize_matmul_f8": (os.path.join(EXAMPLES, "quantize_matmul_f8"), "spec.json",
                           lambda r: [np.array([8.0, 0.125, 1.5], np.float32),
                                      bf16_bits(nonzero_normal(r, (512, 256))),
                                      f8_bits(nonzero_normal(r, (256, 256)))],
                           quantize_matmul_f8_ref, 1e-2, 1e-2, bf16_or_f8_bits),
    "flash_attention_f8_kb256": (os.path.join(EXAMPLES, "flash_attention_f8_kb256"), "spec.json",
                                 lambda r: flash_attention_f8_inputs(r, 1024),
                                 flash_attention_f8_ref, 5e-2, 2e-2, from_bf16_bits),
    "f8_quantize": (os.path.join(EXAMPLES, "f8_quantize"), "spec.json",
                    lambda r: [np.array([20.0, 0.05], np.float32),
                               bf16_bits(nonzero_normal(r, (1024, 128)))],
                    f8_quantize_ref, 0, 0, None),
    "dma_rows": (os.path.join(EXAMPLES, "dma_rows"), "spec.json",
                 lambda r: [nonzero_normal(r, (64, 128)), nonzero_normal(r, (64, 128))],
                 lambda x, y: [x + 2 * y], 1e-6, 0, None),
    "mgpu_matmul": (os.path.join(EXAMPLES, "mgpu_matmul"), "spec.json",
                    lambda r: [nonzero_normal(r, (256, 512), np.float16),
                               nonzero_normal(r, (512, 256), np.float16)],
                    lambda x, y: [(x.astype(np.float32) @ y.astype(np.float32)).astype(np.float16)],
                    2e-3, 2e-3, None),
    "matmul_dma": (os.path.join(EXAMPLES, "matmul_dma"), "spec.json",
                   lambda r: [bf16_bits(nonzero_normal(r, (512, 512))),
                              bf16_bits(nonzero_normal(r, (512, 512)))],
                   lambda x, y: [matmul_bf16(x, y)], 1e-2, 1e-2, from_bf16_bits),
    "dma_double_buffer": (os.path.join(EXAMPLES, "dma_double_buffer"), "spec.json",
                          lambda r: [nonzero_normal(r, (4, 6, 8, 128))],
                          lambda x: [np.einsum("k,ikrc->irc", np.arange(1, 7, dtype=np.float32),
                                               x)], 1e-5, 1e-5, None),
    "dma_pages": (os.path.join(EXAMPLES, "dma_pages"), "spec.json",
                  lambda r: [r.permutation(16)[:16].reshape(4, 4).astype(np.int32),
                             nonzero_normal(r, (16, 8, 128))],
                  dma_pages_ref, 1e-6, 0, None),
    "scratch_slots": (os.path.join(ROOT, "test", "Triton", "Inputs", "scratch_slots"), "spec.json",
                      lambda r: [nonzero_normal(r, (2, 4, 8, 128))], scratch_slots_ref,
                      1e-5, 1e-6, None),
    "semaphore_flow": (os.path.join(ROOT, "test", "Triton", "Inputs", "semaphore_flow"),
                       "spec.json", lambda r: [r.integers(1, 1000, (4, 4)).astype(np.int32)],
                       semaphore_flow_ref, 0, 0, None),
    "grouped_matmul": (os.path.join(EXAMPLES, "grouped_matmul"), "spec.json",
                       grouped_matmul_inputs, grouped_matmul_ref, 1e-2, 1e-2, from_bf16_bits),
    "grouped_matmul_sequential": (os.path.join(EXAMPLES, "grouped_matmul_sequential"),
                                  "spec.json", grouped_matmul_inputs, grouped_matmul_ref,
                                  1e-2, 1e-2, from_bf16_bits),
    "grouped_matmul_rows": (os.path.join(EXAMPLES, "grouped_matmul_rows"), "spec.json",
                            grouped_matmul_rows_inputs, grouped_matmul_ref, 1e-2, 1e-2,
                            from_bf16_bits),
    "ops_tour": (os.path.join(EXAMPLES, "ops_tour"), "spec.json",
                 lambda r: [nonzero_normal(r, (16, 32))], ops_tour_ref,
                 1e-5, 1e-5, None),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--artifacts",
                        help="run prebuilt artifacts with pallas-launch")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--asan", action="store_true",
                        help="compile with --sanitize address and run under "
                             "the ASan-built launcher")
    args = parser.parse_args()
    folder, spec, make_inputs, reference, rtol, atol, decode = CASES[args.case]
    rng = np.random.default_rng(args.seed)
    inputs = make_inputs(rng)
    expected = reference(*inputs)
    with tempfile.TemporaryDirectory() as tmp:
        in_files, out_files = [], []
        for i, a in enumerate(inputs):
            in_files.append(os.path.join(tmp, f"in{i}.npy"))
            np.save(in_files[-1], a)
        out_files = [os.path.join(tmp, f"out{i}.npy") for i in range(len(expected))]
        if args.asan:
            art = os.path.join(tmp, "artifacts")
            compile_cmd = [os.path.join(args.bin, "pallasc"),
                           os.path.join(folder, "kernel.mlir"),
                           "--spec", os.path.join(folder, spec), "--target", "host",
                           "--sanitize", "address", "-o", art]
            subprocess.run(compile_cmd, check=True)
            cmd = [os.path.join(args.bin, "pallas-launch-asan"), art]
        elif args.artifacts:
            cmd = [os.path.join(args.bin, "pallas-launch"), args.artifacts]
        else:
            cmd = [os.path.join(args.bin, "pallas-run"),
                   os.path.join(folder, "kernel.mlir"),
                   "--spec", os.path.join(folder, spec)]
        cmd += ["--inputs", *in_files, "--outputs", *out_files]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL {args.case}: {' '.join(cmd)} exited {run.returncode}\n{run.stderr}")
        failures = 0
        for i, want in enumerate(expected):
            got = np.load(out_files[i])
            if decode:
                got = decode(got)
            want = np.asarray(want)
            if got.shape != want.shape:
                print(f"FAIL {args.case} output {i}: shape {got.shape}, want {want.shape}")
                failures += 1
                continue
            if got.dtype.kind == "f" and np.isnan(got).any():
                print(f"FAIL {args.case} output {i}: {np.isnan(got).sum()} element(s) "
                      "never written (NaN poison left)")
                failures += 1
                continue
            ok = np.isclose(got.astype(np.float64), want.astype(np.float64),
                            rtol=rtol, atol=atol)
            if not ok.all():
                bad = np.argwhere(~ok)[:5]
                print(f"FAIL {args.case} output {i}: {(~ok).sum()} of {ok.size} differ; "
                      f"first at {bad.tolist()}: got {got[tuple(bad[0])]}, "
                      f"want {want[tuple(bad[0])]}")
                failures += 1
        if failures:
            sys.exit(1)
        print(f"PASS {args.case}: {len(expected)} output(s), "
              f"{sum(np.asarray(w).size for w in expected)} elements checked")


if __name__ == "__main__":
    main()
