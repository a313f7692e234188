"""Compiles a chain whose backward kernel pallasc's scan fusion takes
(JAX's mha: dQ's scan over key blocks after dK/dV's over query blocks),
and mutants of it whose dQ scan computes something else than the dK/dV
scan's pairs, each for the host; prints for each whether pallasc fused it
("fused": the compiled chain.json has more kernels than the exported one)
or compiled it as written. A mutant edits the kernel text after dK/dV's
scan (after the first scf.yield), where the dQ scan is.

usage: scan_fusion_mutants.py CHAIN_DIR OUT_DIR
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


def main():
  chain_dir, out_dir = sys.argv[1:]
  kernel = os.path.join(chain_dir, "mha_backward", "kernel.mlir")
  text = open(kernel).read()
  cut = text.index("scf.yield")
  exported = len(json.load(open(os.path.join(chain_dir, "chain.json")))["kernels"])
  for name, mutate in MUTANTS.items():
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
