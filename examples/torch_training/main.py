"""Trains a small transformer block (pre-norm causal self-attention and an
MLP) for a few steps of SGD with our ops,
torch.ops.pallasc.attention_bf16_mha_forward (JAX's flash attention, its
backward kernels registered as its autograd) and
torch.ops.pallasc.norm_f32_ln_forward (JAX's layer norm, likewise), eagerly and
under torch.compile(fullgraph=True), and checks that every step's loss
and the gradients of the first step match the same block built of
torch's own ops (F.scaled_dot_product_attention, F.layer_norm).

usage: python3 main.py OUT   (OUT: what build.sh wrote; a CUDA build runs
on the GPU, a host build on the CPU)
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernels import BATCH, HEAD_DIM, HEADS, MODEL, SEQ  # noqa: E402

out = os.path.abspath(sys.argv[1])
sys.path[:0] = [os.path.join(out, "attention"), os.path.join(out, "norm")]
import attention_bf16_torch  # noqa: E402  (written by pallasc --emit torch)
import norm_f32_torch  # noqa: E402

attention_bf16_torch.load(os.path.join(out, "attention"))
norm_f32_torch.load(os.path.join(out, "norm"))
cuda = '"target_kind": "cuda"' in open(os.path.join(
    out, "attention", "mha_forward", "attention_bf16_mha_forward.manifest.json")).read()
device = "cuda" if cuda else "cpu"


def ours_attention(q, k, v):  # [B, S, H, D] bf16
    return attention_bf16_torch.attention_bf16(q, k, v)


def torch_attention(q, k, v):
    t = lambda x: x.transpose(1, 2)
    return t(torch.nn.functional.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True))


def ours_norm(x, w, b):
    return norm_f32_torch.norm_f32(x, w, b)


def torch_norm(x, w, b):
    return torch.nn.functional.layer_norm(x, (MODEL,), w, b, eps=1e-5)


def block(params, x, attention, norm):
    ln1_w, ln1_b, w_qkv, w_o, ln2_w, ln2_b, w_up, w_down = params
    h = norm(x, ln1_w, ln1_b)
    q, k, v = (h @ w_qkv).to(torch.bfloat16).reshape(BATCH, SEQ, 3, HEADS, HEAD_DIM).unbind(2)
    a = attention(q.contiguous(), k.contiguous(), v.contiguous())
    x = x + a.reshape(BATCH, SEQ, MODEL).float() @ w_o
    h = norm(x, ln2_w, ln2_b)
    return x + torch.nn.functional.gelu(h @ w_up) @ w_down


def loss_fn(params, x, target, attention, norm):
    return ((block(params, x, attention, norm) - target) ** 2).mean()


def init(seed):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, scale=1.0: (torch.randn(*s, generator=g) * scale).to(device)
    params = [1 + r(MODEL, scale=0.1), r(MODEL, scale=0.1), r(MODEL, 3 * MODEL, scale=MODEL ** -0.5),
              r(MODEL, MODEL, scale=MODEL ** -0.5), 1 + r(MODEL, scale=0.1), r(MODEL, scale=0.1),
              r(MODEL, 4 * MODEL, scale=MODEL ** -0.5), r(4 * MODEL, MODEL, scale=(4 * MODEL) ** -0.5)]
    x, target = r(BATCH, SEQ, MODEL), r(BATCH, SEQ, MODEL)
    return [p.requires_grad_() for p in params], x, target


def train(attention, norm, compiled, steps=5, lr=0.5):
    params, x, target = init(0)
    step = lambda: loss_fn(params, x, target, attention, norm)
    if compiled:
        step = torch.compile(step, fullgraph=True)
    losses, first_grads = [], None
    for _ in range(steps):
        loss = step()
        grads = torch.autograd.grad(loss, params)
        if first_grads is None:
            first_grads = [g.detach().clone() for g in grads]
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= lr * g
        losses.append(loss.item())
    return losses, first_grads


failures = 0
want, want_grads = train(torch_attention, torch_norm, compiled=False)
print(f"torch ({device}): losses " + " ".join(f"{l:.5f}" for l in want))
for compiled in (False, True):
    how = "torch.compile" if compiled else "eager"
    got, grads = train(ours_attention, ours_norm, compiled)
    loss_err = max(abs(a - b) / abs(b) for a, b in zip(got, want))
    grad_err = max(float((g - w).norm() / w.norm()) for g, w in zip(grads, want_grads))
    ok = loss_err < 2e-2 and grad_err < 3e-2 and all(map(torch.isfinite, map(torch.tensor, got)))
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} ours ({device}, {how}): losses "
          + " ".join(f"{l:.5f}" for l in got)
          + f"; max relative loss difference {loss_err:.1e}, first step's gradients "
            f"within {grad_err:.1e} normwise")
sys.exit(1 if failures else 0)
