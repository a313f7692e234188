#!/usr/bin/env python3
"""Compiles a pallasc .ttir with the real Triton (no GPU needed):
triton.compile(path, target=GPUTarget("cuda", ARCH, 32), options from the
manifest). usage: compile_ttir.py ARTIFACT_DIR [--arch 90]"""
import argparse
import glob
import json
import os
import re
import sys

parser = argparse.ArgumentParser()
parser.add_argument("artifacts")
parser.add_argument("--arch", type=int, default=90)
args = parser.parse_args()

import triton
from triton.backends.compiler import GPUTarget

manifest = json.load(open(glob.glob(os.path.join(args.artifacts, "*.manifest.json"))[0]))
launch = manifest["launch"]
path = os.path.join(args.artifacts, manifest["name"] + ".ttir")
kernel = triton.compile(path, target=GPUTarget("cuda", args.arch, 32),
                        options={"num_warps": launch["num_warps"],
                                 "num_stages": launch["num_stages"]})
cubin = kernel.asm["cubin"]
if not cubin:
    sys.exit(f"{path}: no cubin")
print(f"compiled {manifest['name']} for sm_{args.arch}: cubin {len(cubin)} bytes, "
      f"shared {kernel.metadata.shared}, num_warps {kernel.metadata.num_warps}")
if "mma" in kernel.asm["ptx"]:
    print("uses tensor core mma")
for instr in sorted(set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.[\w.]+", kernel.asm["ptx"]))):
    print("uses", instr)
