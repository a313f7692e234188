"""Running an exported chain (chain.json, written by `export_vjp`): the
kernels in order, each given the arrays its manifest entry names. Pure
Python over any array type with `.reshape` (NumPy, torch), so that a
launcher without JAX (a GPU machine's, a C++ program's port of it) follows
the same rules."""
from __future__ import annotations

import json
import os
from typing import Callable, Sequence


def load(directory: str) -> dict:
  with open(os.path.join(directory, "chain.json")) as f:
    return json.load(f)


def load_constants(directory: str, manifest: dict) -> list:
  """The chain's constants (arrays the function captured) as NumPy arrays,
  from the files beside chain.json that its "constants" name."""
  import numpy as np  # (only chains with constants need NumPy)
  return [np.load(os.path.join(directory, c["file"]))
          for c in manifest.get("constants", [])]


def source_dir(exported: str, compiled: str, directory: str) -> str:
  """Where kernel `directory` of a chain has its kernel.mlir and spec.json:
  beside its artifacts in `compiled` (the chain pallasc compiled) where
  pallasc rewrote or added it (scan fusion), else in `exported` (the chain
  as exported)."""
  rewritten = os.path.join(compiled, directory) if compiled else ""
  if rewritten and os.path.exists(os.path.join(rewritten, "spec.json")):
    return rewritten
  return os.path.join(exported, directory)


def run(manifest: dict, inputs: Sequence, cotangents: Sequence,
        run_kernel: Callable[[dict, list], list],
        roles: tuple[str, ...] = ("forward", "backward"),
        constants: Sequence = ()) -> dict:
  """Runs the manifest's kernels of `roles` in order. `run_kernel(entry,
  operands)` runs one (entry: the manifest's kernel entry; its
  "directory" holds kernel.mlir and spec.json) and returns its outputs.
  `constants`: the chain's constants (load_constants), as arrays of the
  kind `inputs` are.
  Returns {"outputs": [...], "gradients": [...] (None for an integer
  argument or where a role was not run), "kernels": {directory: outputs}}."""
  if len(inputs) != len(manifest["inputs"]):
    raise ValueError(f"{len(inputs)} inputs for a chain of "
                     f"{len(manifest['inputs'])}")
  if len(cotangents) != len(manifest["cotangents"]):
    raise ValueError(f"{len(cotangents)} cotangents for a chain of "
                     f"{len(manifest['cotangents'])}")
  if len(constants) != len(manifest.get("constants", [])):
    raise ValueError(f"{len(constants)} constants for a chain of "
                     f"{len(manifest.get('constants', []))}")
  results: dict[str, list] = {}

  def value(src: dict | None):
    if src is None:
      return None
    if "input" in src:
      x = inputs[src["input"]]
    elif "cotangent" in src:
      x = cotangents[src["cotangent"]]
    elif "constant" in src:
      x = constants[src["constant"]]
    else:
      outs = results.get(src["kernel"])
      if outs is None:
        return None  # a kernel of a role not run
      x = outs[src["output"]]
    return x.reshape(tuple(src["shape"])) if "shape" in src else x

  for entry in manifest["kernels"]:
    if entry["role"] not in roles:
      continue
    operands = [value(s) for s in entry["operands"]]
    missing = [k for k, x in enumerate(operands) if x is None]
    if missing:
      raise ValueError(f"kernel {entry['directory']} takes operand "
                       f"{missing[0]} from a kernel that was not run")
    results[entry["directory"]] = list(run_kernel(entry, operands))
  return {"outputs": [value(s) for s in manifest["outputs"]],
          "gradients": [value(s) for s in manifest["gradients"]],
          "kernels": results}
