"""`python3 -m pallasc_jax MODULE:FUNCTION --arg f32[128,256] ... -o DIR
[-t TARGET] [--vjp]`: exports the function's pallas_call (or
plgpu.kernel), or with --vjp every kernel of its forward pass and VJP, and
with -t compiles them."""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import re
import shutil
import subprocess
import sys

import jax

from .errors import ExportError
from .export import export
from .mlir_text import NUMPY_DTYPES
from .vjp import export_vjp

_ARG = re.compile(r"^([A-Za-z0-9_]+)\[([0-9, ]*)\]$")
# NumPy's and JAX's names for the pallas element types.
_DTYPE_ALIASES = {
    "float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "bool": "i1",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
}


def parse_arg(text: str) -> jax.ShapeDtypeStruct:
  """`f32[128,256]` or `float32[128,256]` (pallas or NumPy element type
  names; `f32[]` is a scalar)."""
  m = _ARG.match(text.strip())
  dtype = m and _DTYPE_ALIASES.get(m.group(1), m.group(1))
  if not m or dtype not in NUMPY_DTYPES:
    raise argparse.ArgumentTypeError(
        f"'{text}' is not DTYPE[DIMS] with DTYPE one of "
        f"{', '.join(NUMPY_DTYPES)} (or NumPy's name: float32, ...), "
        f"e.g. f32[128,256]")
  dims = tuple(int(d) for d in m.group(2).split(",") if d.strip())
  return jax.ShapeDtypeStruct(dims, NUMPY_DTYPES[dtype])


def load_function(target: str):
  """The function MODULE:FUNCTION names; an ExportError (one line) where
  the module or the function is not there."""
  module_name, _, attr = target.partition(":")
  if not module_name or not attr:
    raise ExportError(f"'{target}' is not MODULE:FUNCTION")
  try:
    fn = importlib.import_module(module_name)
  except ModuleNotFoundError as e:
    if e.name and module_name.startswith(e.name):
      raise ExportError(f"no module named '{module_name}' (looked in the current "
                        "directory and on PYTHONPATH)") from None
    raise
  for part in attr.split("."):
    if not hasattr(fn, part):
      raise ExportError(f"module '{module_name}' has no function '{attr}'")
    fn = getattr(fn, part)
  if not callable(fn):
    raise ExportError(f"'{target}' is not a function")
  return fn


def find_pallasc(given: str | None) -> str:
  path = given or os.environ.get("PALLASC") or shutil.which("pallasc")
  if not path:
    raise ExportError("pallasc not found: pass --pallasc PATH, set PALLASC, "
                      "or put it on PATH")
  return path


def _export_chain(args) -> int:
  # (pallasc first: nothing is written where it is missing.)
  pallasc = find_pallasc(args.pallasc) if args.target else None
  chain = export_vjp(load_function(args.function), *args.arg, prefix=args.name)
  try:
    chain.write(args.output)
  except OSError as e:
    raise ExportError(f"cannot write {args.output}: {e.strerror or e}") from None
  if not args.target:
    return 0
  # The chain compiles as one (pallasc's chain rewrites apply: JAX's
  # flash attention dQ scan folded into dK/dV's), into DIR/TARGET/.
  cmd = [pallasc, os.path.join(args.output, "chain.json"), "-t", args.target,
         "-o", os.path.join(args.output, args.target)]
  return subprocess.run(cmd, check=False).returncode


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(
      prog="python3 -m pallasc_jax",
      description="Export the pallas_call (or plgpu.kernel) of a JAX "
                  "function as a pallas kernel (DIR/kernel.mlir) and launch "
                  "spec (DIR/spec.json).")
  parser.add_argument("function", help="MODULE:FUNCTION (imported; the "
                      "current directory is on the module path)")
  parser.add_argument("--arg", action="append", type=parse_arg, default=[],
                      help="an example argument, DTYPE[DIMS], in order")
  parser.add_argument("-o", "--output", required=True, help="output directory")
  parser.add_argument("-t", "--target", help="also compile with pallasc for "
                      "this target, into DIR/TARGET/ (with --vjp, the chain: "
                      "DIR/TARGET/chain.json and DIR/TARGET/KERNEL/)")
  parser.add_argument("--pallasc", help="the pallasc binary (default: "
                      "$PALLASC, then PATH)")
  parser.add_argument("--vjp", action="store_true", help="export every "
                      "kernel that the forward pass and jax.vjp of the "
                      "function run (its custom_vjp rules' backward "
                      "kernels), each into DIR/KERNEL/, and how they chain "
                      "into DIR/chain.json")
  parser.add_argument("--name", help="the artifacts' name (the spec's "
                      "\"name\"; default: the kernel's, as JAX named it); "
                      "with --vjp, their prefix (NAME_KERNEL; default: the "
                      "function's name)")
  args = parser.parse_args(argv)
  sys.path.insert(0, os.getcwd())
  try:
    if args.vjp:
      return _export_chain(args)
    exported = export(load_function(args.function), *args.arg)
    if args.name:
      spec = {"kernel": exported.spec["kernel"], "name": args.name,
              **{k: v for k, v in exported.spec.items() if k not in ("kernel", "name")}}
      exported = dataclasses.replace(exported, spec=spec)
    mlir_path, spec_path = exported.write(args.output)
    if args.target:
      cmd = [find_pallasc(args.pallasc), mlir_path, "--spec", spec_path,
             "-t", args.target, "-o", os.path.join(args.output, args.target)]
      return subprocess.run(cmd, check=False).returncode
  except ExportError as e:
    print(f"error: {e}", file=sys.stderr)
    return 1
  return 0
