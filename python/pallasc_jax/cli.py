"""`python3 -m pallasc_jax MODULE:FUNCTION --arg f32[128,256] ... -o DIR
[-t TARGET]`: exports the function's pallas_call (or plgpu.kernel), and
with -t compiles it."""
from __future__ import annotations

import argparse
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

_ARG = re.compile(r"^([A-Za-z0-9]+)\[([0-9, ]*)\]$")


def parse_arg(text: str) -> jax.ShapeDtypeStruct:
  """`f32[128,256]` (pallas element type names; `f32[]` is a scalar)."""
  m = _ARG.match(text.strip())
  if not m or m.group(1) not in NUMPY_DTYPES:
    raise argparse.ArgumentTypeError(
        f"'{text}' is not DTYPE[DIMS] with DTYPE one of "
        f"{', '.join(NUMPY_DTYPES)}, e.g. f32[128,256]")
  dims = tuple(int(d) for d in m.group(2).split(",") if d.strip())
  return jax.ShapeDtypeStruct(dims, NUMPY_DTYPES[m.group(1)])


def load_function(target: str):
  module_name, _, attr = target.partition(":")
  if not attr:
    raise ExportError(f"'{target}' is not MODULE:FUNCTION")
  fn = importlib.import_module(module_name)
  for part in attr.split("."):
    fn = getattr(fn, part)
  return fn


def find_pallasc(given: str | None) -> str:
  path = given or os.environ.get("PALLASC") or shutil.which("pallasc")
  if not path:
    raise ExportError("pallasc not found: pass --pallasc PATH, set PALLASC, "
                      "or put it on PATH")
  return path


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
                      "this target, into DIR/TARGET/")
  parser.add_argument("--pallasc", help="the pallasc binary (default: "
                      "$PALLASC, then PATH)")
  args = parser.parse_args(argv)
  sys.path.insert(0, os.getcwd())
  try:
    exported = export(load_function(args.function), *args.arg)
    mlir_path, spec_path = exported.write(args.output)
    if args.target:
      cmd = [find_pallasc(args.pallasc), mlir_path, "--spec", spec_path,
             "-t", args.target, "-o", os.path.join(args.output, args.target)]
      return subprocess.run(cmd, check=False).returncode
  except ExportError as e:
    print(f"error: {e}", file=sys.stderr)
    return 1
  return 0
