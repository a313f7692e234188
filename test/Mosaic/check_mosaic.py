#!/usr/bin/env python3
"""Has jaxlib read what pallasc emitted for a TPU target: for each artifact
directory, parses <name>.mlirbc with the `tpu` dialect registered, checks the
stable_mosaic version, undoes the op renaming with jaxlib's own
`mosaic-serde{serialize=false}` and runs the real op verifiers; also checks
that the tpu_custom_call backend config carries the same bytes. A path to a
.mlirbc file checks that file alone.
usage: check_mosaic.py ARTIFACT_DIR|FILE.mlirbc... [--print]"""
import argparse
import base64
import glob
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("artifacts", nargs="+")
parser.add_argument("--print", action="store_true",
                    help="print each module after mosaic-serde")
args = parser.parse_args()

from jax._src.interpreters import mlir
from jax._src.lib import tpu
from jax._src.lib.mlir import ir, passmanager
import jaxlib

status = 0
for directory in args.artifacts:
    problems = []
    if directory.endswith(".mlirbc"):
        body = open(directory, "rb").read()
        name, launch = os.path.basename(directory), None
    else:
        manifest = json.load(open(glob.glob(os.path.join(directory, "*.manifest.json"))[0]))
        name, launch = manifest["name"], manifest["launch"]
        body = open(os.path.join(directory, launch["body"]), "rb").read()
        config = json.load(open(os.path.join(directory, launch["backend_config"])))
        call = config["custom_call_config"]
        if base64.b64decode(call["body"]) != body:
            problems.append("backend config body differs from the .mlirbc")
        if call.get("serialization_format") != 1 or call.get("needs_layout_passes") is not True:
            problems.append("backend config lacks serialization_format 1 / needs_layout_passes")
    # Magic, then the version as a varint: 0 is the byte 0x01.
    if not body.startswith(b"ML\xefR\x01"):
        problems.append("not MLIR bytecode version 0")
    # The context JAX itself uses for Mosaic (arith, func, math, memref, scf,
    # vector, ...) plus the tpu dialect.
    ctx = mlir.make_ir_context()
    tpu.register_dialect(ctx)
    ctx.allow_unregistered_dialects = True
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(body)
            version = ir.IntegerAttr(module.operation.attributes["stable_mosaic.version"]).value
            if launch and version != launch["stable_mosaic_version"]:
                problems.append(f"module version {version}, manifest says "
                                f"{launch['stable_mosaic_version']}")
            passmanager.PassManager.parse(
                "builtin.module(mosaic-serde{serialize=false})").run(module.operation)
            # Verification proper: every op registered (no stable_mosaic left).
            ctx.allow_unregistered_dialects = False
            if not module.operation.verify():
                problems.append("verify() failed")
        except Exception as e:  # jaxlib reports parse and verifier errors this way
            problems.append(str(e).strip())
    if problems:
        status = 1
        print(f"{directory}: FAILED: " + "; ".join(problems))
        continue
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    print(f"jaxlib {jaxlib.__version__} verified {name}: stable_mosaic "
          f"version {version}, {len(funcs)} functions")
    if args.print:
        print(module)
sys.exit(status)
