"""Compiles a chain whose backward kernel pallasc's scan fusion takes
(JAX's mha: dQ's scan over key blocks after dK/dV's over query blocks),
and mutants of it whose dQ scan computes something else than the dK/dV
scan's pairs, each for the host; prints for each whether pallasc fused it
("fused": the compiled chain.json has more kernels than the exported one)
or compiled it as written. A mutant edits the kernel text after dK/dV's
scan (after the first scf.yield), where the dQ scan is.

usage: scan_fusion_mutants.py CHAIN_DIR OUT_DIR [--causal]
(--causal: the mutants of a causal chain's mask and bounds)
"""
import json
import os
import shutil
import subprocess
import sys

MUTANTS = {
    "as exported": lambda dq: dq,
    "exp instead of exp2": lambda dq: dq.replace("math.exp2", "math.exp"),
    "another scale": lambda dq: dq.replace("dense<0.125>", "dense<0.25>"),
    "delta read as lse": lambda dq: dq.replace("%delta_ref[", "%lse_ref["),
    "dO read as Q": lambda dq: dq.replace("%do_scaled_ref[", "%q_ref["),
}
CAUSAL_MUTANTS = {
    "as exported": lambda dq: dq,
    "mask fill -1e20": lambda dq: dq.replace("-2.3819763e+38", "-1.0e+20"),
    "mask flipped": lambda dq: dq.replace("arith.cmpi sge", "arith.cmpi sle"),
    "dQ scan ends a block early": lambda dq: dq.replace("arith.constant 63 : i32",
                                                         "arith.constant -1 : i32"),
    "dQ scan past the rows": lambda dq: dq.replace("arith.constant 63 : i32",
                                                    "arith.constant 4000 : i32"),
}


def main():
  chain_dir, out_dir = sys.argv[1:3]
  mutants = CAUSAL_MUTANTS if sys.argv[3:] == ["--causal"] else MUTANTS
  kernel = os.path.join(chain_dir, "mha_backward", "kernel.mlir")
  text = open(kernel).read()
  cut = text.index("scf.yield")
  exported = len(json.load(open(os.path.join(chain_dir, "chain.json")))["kernels"])
  for name, mutate in mutants.items():
    mutant = os.path.join(out_dir, name.replace(" ", "_"))
    shutil.copytree(chain_dir, os.path.join(mutant, "chain"))
    with open(os.path.join(mutant, "chain", "mha_backward", "kernel.mlir"), "w") as f:
      f.write(text[:cut] + mutate(text[cut:]))
    subprocess.run(["pallasc", os.path.join(mutant, "chain", "chain.json"), "-t", "host",
                    "-o", os.path.join(mutant, "host")], check=True)
    compiled = json.load(open(os.path.join(mutant, "host", "chain.json")))["kernels"]
    print(f"{name}: {'fused' if len(compiled) > exported else 'as written'}")


if __name__ == "__main__":
  main()
