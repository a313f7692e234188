#!/usr/bin/env python3
"""Compares what pallasc emitted for a TPU target with what JAX itself ships
for the same kernel written in JAX Pallas: jax.export(jax.jit(f),
platforms=["tpu"]) (no TPU needed), the tpu_custom_call backend config taken
from the exported StableHLO, its body decoded like ours. Both modules go
through jaxlib's mosaic-serde{serialize=false}; then they must agree on the
stable_mosaic version, the kernel's signature and attributes
(dimension_semantics, iteration_bounds, scalar_prefetch, scratch_operands,
tpu.core_type, window_params), the transform functions (signature and what
each returns) and the set of op names in the kernel body (scalar arith
aside, see describe()).
usage: compare_jax.py CASE ARTIFACT_DIR"""
import base64
import functools
import glob
import json
import os
import re
import sys

import jax
import jax.numpy as jnp
from jax import export
from jax._src.interpreters import mlir
from jax._src.lib import tpu
from jax._src.lib.mlir import ir, passmanager
from jax._src.pallas.mosaic import tpu_info
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

# Lowering rank-1 blocks asks for the chip's tiling; without a TPU, say v5e.
tpu_info.registry.setdefault(
    "cpu", lambda: tpu_info.get_tpu_info_for_chip(tpu_info.ChipVersion.TPU_V5E, 1))

S = jax.ShapeDtypeStruct
f32, bf16, i32 = jnp.float32, jnp.bfloat16, jnp.int32


# The kernels, named as in the pallas dialect (JAX names the Mosaic function
# after the Python function).
def add_vectors(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def matmul_relu(x_ref, y_ref, z_ref):
    z_ref[...] = jnp.maximum(
        jnp.dot(x_ref[...], y_ref[...], preferred_element_type=f32), 0.0)


def matmul_accumulate(x_ref, y_ref, z_ref, acc_ref):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros((256, 256), f32)

    acc_ref[...] = acc_ref[...] + jnp.dot(x_ref[...], y_ref[...],
                                          preferred_element_type=f32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _():
        z_ref[...] = acc_ref[...]


def matmul_kloop(x_ref, y_ref, z_ref):
    def body(k, acc):
        off = k * 64
        a = x_ref[:, pl.ds(off, 64)]
        b = y_ref[pl.ds(off, 64), :]
        return acc + jnp.dot(a, b, preferred_element_type=f32)
    acc = jax.lax.fori_loop(0, 64, body, jnp.zeros((128, 128), f32))
    z_ref[...] = acc.astype(bf16)


def row_softmax(x_ref, o_ref):
    v = x_ref[...]
    e = jnp.exp(v - jnp.max(v, axis=1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)


def dma_rows(x_hbm, o_ref):
    start = pl.program_id(0) * 8

    def scoped(buf, sem):
        copy = pltpu.make_async_copy(x_hbm.at[pl.ds(start, 8), :], buf, sem)
        copy.start()
        copy.wait()
        o_ref[...] = buf[...] * 2.0
    pl.run_scoped(scoped, pltpu.VMEM((8, 128), f32), pltpu.SemaphoreType.DMA)


def matmul_dma(x_hbm, y_hbm, z_ref):
    row, col = pl.program_id(0) * 128, pl.program_id(1) * 256

    def body(k, acc):
        off = k * 64

        def scoped(bx, by, sx, sy):
            cx = pltpu.make_async_copy(x_hbm.at[pl.ds(row, 128), pl.ds(off, 64)], bx, sx)
            cy = pltpu.make_async_copy(y_hbm.at[pl.ds(off, 64), pl.ds(col, 256)], by, sy)
            cx.start()
            cy.start()
            cx.wait()
            cy.wait()
            return acc + jnp.dot(bx[...], by[...], preferred_element_type=f32)
        return pl.run_scoped(scoped, pltpu.VMEM((128, 64), bf16), pltpu.VMEM((64, 256), bf16),
                             pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA)
    acc = jax.lax.fori_loop(0, 8, body, jnp.zeros((128, 256), f32))
    z_ref[...] = acc.astype(bf16)


def dma_pages(pages_ref, x_hbm, o_hbm):
    i = pl.program_id(0)

    def scoped(inb, outb, sem):
        def copy_in(p):
            return pltpu.make_async_copy(x_hbm.at[pages_ref[i, p]], inb.at[pl.ds(p * 8, 8), :],
                                         sem)

        @pl.loop(0, 4)
        def _(p):
            copy_in(p).start()

        @pl.loop(0, 4)
        def _(p):
            copy_in(p).wait()
        outb[...] = inb[...] * 2.0 + 1.0

        @pl.loop(0, 4)
        def _(p):
            c = pltpu.make_async_copy(outb.at[pl.ds(p * 8, 8), :],
                                      o_hbm.at[pl.ds(i * 32 + (3 - p) * 8, 8), :], sem)
            c.start()
            c.wait()
    pl.run_scoped(scoped, pltpu.VMEM((32, 128), f32), pltpu.VMEM((32, 128), f32),
                  pltpu.SemaphoreType.DMA)


def dma_double_buffer(x_hbm, o_ref):
    i = pl.program_id(0)

    def scoped(buf, sem):
        def copy(k, slot):
            return pltpu.make_async_copy(x_hbm.at[i, k], buf.at[slot], sem)
        copy(0, 0).start()

        def body(k, acc):
            slot = k % 2
            copy(k, slot).wait()

            @pl.when(k + 1 < 6)
            def _():
                copy(k + 1, 1 - slot).start()
            return acc + buf[slot] * (k + 1).astype(f32)
        return jax.lax.fori_loop(0, 6, body, jnp.zeros((8, 128), f32))
    o_ref[...] = pl.run_scoped(scoped, pltpu.VMEM((2, 8, 128), f32), pltpu.SemaphoreType.DMA)


def prefetch_blocks(rows_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def _mm_specs(batched):
    lead = (None,) if batched else ()
    pre = (lambda b, i, j: (b,)) if batched else (lambda i, j: ())
    def spec(shape, f):
        return pl.BlockSpec(lead + shape, lambda *g: pre(*g) + f(*g[len(lead):]))
    return ([spec((512, 1024), lambda i, j: (i, 0)), spec((1024, 512), lambda i, j: (0, j))],
            spec((512, 512), lambda i, j: (i, j)))


def _matmul_relu(batched):
    ins, out = _mm_specs(batched)
    lead = (4,) if batched else ()
    call = pl.pallas_call(matmul_relu, out_shape=S(lead + (1024, 1024), f32),
                          grid=lead + (2, 2), in_specs=ins, out_specs=out)
    return call, [S(lead + (1024, 1024), f32)] * 2


def _cases():
    yield "add_vectors", (pl.pallas_call(add_vectors, out_shape=S((8,), i32)),
                          [S((8,), i32)] * 2)
    yield "matmul_relu", _matmul_relu(False)
    yield "matmul_relu_vmap", _matmul_relu(True)
    yield "matmul_accumulate", (pl.pallas_call(
        matmul_accumulate, out_shape=S((1024, 1024), f32), grid=(4, 4, 4),
        in_specs=[pl.BlockSpec((256, 256), lambda i, j, k: (i, k)),
                  pl.BlockSpec((256, 256), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((256, 256), f32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary"))),
        [S((1024, 1024), bf16)] * 2)
    yield "matmul_kloop", (pl.pallas_call(
        matmul_kloop, out_shape=S((4096, 4096), bf16), grid=(32, 32),
        in_specs=[pl.BlockSpec((128, 4096), lambda i, j: (i, 0)),
                  pl.BlockSpec((4096, 128), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((128, 128), lambda i, j: (i, j))),
        [S((4096, 4096), bf16)] * 2)
    yield "row_softmax", (pl.pallas_call(
        row_softmax, out_shape=S((64, 1024), f32), grid=(8,),
        in_specs=[pl.BlockSpec((8, 1024), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 1024), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",))),
        [S((64, 1024), f32)])
    yield "dma_rows", (pl.pallas_call(
        dma_rows, out_shape=S((64, 128), f32), grid=(8,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0))),
        [S((64, 128), f32)])
    yield "matmul_dma", (pl.pallas_call(
        matmul_dma, out_shape=S((512, 512), bf16), grid=(4, 2),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
        out_specs=pl.BlockSpec((128, 256), lambda i, j: (i, j))),
        [S((512, 512), bf16)] * 2)
    yield "dma_pages", (pl.pallas_call(
        dma_pages, out_shape=S((128, 128), f32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(4,),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec(memory_space=pl.ANY))),
        [S((4, 4), i32), S((16, 8, 128), f32)])
    yield "dma_double_buffer", (pl.pallas_call(
        dma_double_buffer, out_shape=S((4, 8, 128), f32), grid=(4,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((None, 8, 128), lambda i: (i, 0, 0))),
        [S((4, 6, 8, 128), f32)])
    yield "prefetch_blocks", (pl.pallas_call(
        prefetch_blocks, out_shape=S((64, 128), f32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(8,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, rows: (rows[i], 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, rows: (i, 0)))),
        [S((8,), i32), S((64, 128), f32)])


CASES = dict(_cases())


def jax_backend_config(case):
    call, args = CASES[case]
    exported = export.export(jax.jit(call), platforms=["tpu"])(*args)
    text = exported.mlir_module()
    found = re.search(r'backend_config = "((?:[^"\\]|\\.)*)"', text)
    if not found:
        sys.exit(f"{case}: no tpu_custom_call in the exported module")
    # MLIR string escapes: \XX is a hex byte.
    raw = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
                 found.group(1))
    return json.loads(raw)


def decode(config, ctx):
    body = base64.b64decode(config["custom_call_config"]["body"])
    module = ir.Module.parse(body)
    version = ir.IntegerAttr(module.operation.attributes["stable_mosaic.version"]).value
    passmanager.PassManager.parse(
        "builtin.module(mosaic-serde{serialize=false})").run(module.operation)
    return module, version


def describe(module):
    """The parts that must agree, as comparable values."""
    funcs = {}
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func":
            funcs[ir.StringAttr(op.attributes["sym_name"]).value] = op
    kernels = [f for f in funcs.values() if "tpu.core_type" in f.attributes]
    if len(kernels) != 1:
        sys.exit("expected one kernel function (with tpu.core_type)")
    kernel = kernels[0]
    d = {"kernel": ir.StringAttr(kernel.attributes["sym_name"]).value,
         "signature": str(kernel.attributes["function_type"])}
    for name in ["dimension_semantics", "iteration_bounds", "scalar_prefetch",
                 "scratch_operands", "tpu.core_type", "window_params"]:
        d[name] = str(kernel.attributes[name]) if name in kernel.attributes else None
    ops = set()

    def collect(op):
        # Scalar arith (index and condition computations) is left out: it
        # follows how each front end spells the same computation (JAX folds
        # `num_programs(2) - 1`, widens pl.when's condition to i32, ...).
        scalar = op.name.startswith("arith.") and op.name != "arith.constant" and \
            not any(str(r.type).startswith("vector<") for r in op.results)
        if not scalar:
            ops.add(op.name)
        return ir.WalkResult.ADVANCE
    kernel.walk(collect)
    ops.discard("func.func")
    d["body ops"] = sorted(ops)
    transforms = {}
    for name, f in sorted(funcs.items()):
        if f is kernel:
            continue
        block = f.regions[0].blocks[0]
        args = list(block.arguments)
        ret = list(block.operations)[-1]
        returns = []
        for v in ret.operands:
            if v in args:
                returns.append(f"grid arg {args.index(v)}")
            elif v.owner.name == "arith.constant":
                returns.append(f"constant {v.owner.attributes['value']}")
            else:
                returns.append(v.owner.name)
        transforms[name] = (str(f.attributes["function_type"]), returns)
    d["transforms"] = transforms
    return d


def differences(case, ours):
    """The parts of `ours` (a tpu_custom_call config) that differ from
    JAX's lowering of the same kernel: [(key, ours, jax's)], and JAX's
    description (for the summary line)."""
    theirs = jax_backend_config(case)
    ctx = mlir.make_ir_context()
    tpu.register_dialect(ctx)
    ctx.allow_unregistered_dialects = True
    with ctx, ir.Location.unknown():
        our_module, our_version = decode(ours, ctx)
        jax_module, jax_version = decode(theirs, ctx)
        a, b = describe(our_module), describe(jax_module)
    a["stable_mosaic.version"], b["stable_mosaic.version"] = our_version, jax_version
    for key in ["serialization_format", "needs_layout_passes"]:
        a[key] = ours["custom_call_config"].get(key)
        b[key] = theirs["custom_call_config"].get(key)
    return [(k, a.get(k), b[k]) for k in b if a.get(k) != b[k]], b


def main():
    case, directory = sys.argv[1], sys.argv[2]
    manifest = json.load(open(glob.glob(os.path.join(directory, "*.manifest.json"))[0]))
    ours = json.load(open(os.path.join(directory, manifest["launch"]["backend_config"])))
    diffs, b = differences(case, ours)
    for k, mine, theirs in diffs:
        print(f"{case}: {k} differs\n  pallasc: {mine}\n  jax:     {theirs}")
    if diffs:
        sys.exit(1)
    print(f"{case}: matches jax {jax.__version__} (stable_mosaic {b['stable_mosaic.version']}, "
          f"{len(b['transforms'])} transforms, {len(b['body ops'])} body op kinds)")


if __name__ == "__main__":
    main()
