"""Printing MLIR text: element types, value types, constants, and an emitter
that names SSA values in order (so the same kernel prints the same bytes)."""
from __future__ import annotations

import contextlib
import dataclasses
import re

import ml_dtypes
import numpy as np

from .errors import ExportError

# NumPy dtype name -> pallas element type (also the spec's dtype names).
_ELEMENT_TYPES = {
    "float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "bool": "i1",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
}
NUMPY_DTYPES = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16,
    "bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E5M2": ml_dtypes.float8_e5m2, "i1": np.bool_, "i8": np.int8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64,
}


def element_type(dtype) -> str:
  name = np.dtype(dtype).name
  if name not in _ELEMENT_TYPES:
    raise ExportError(f"dtype {name} has no pallas element type (supported: "
                      f"{', '.join(sorted(_ELEMENT_TYPES))})")
  return _ELEMENT_TYPES[name]


# JAX memory spaces (any backend's, by their string value) -> the spec's.
_MEMORY_SPACES = {"any": "any", "hbm": "any", "vmem": "vmem", "smem": "smem",
                  "gmem": "gmem", "global": "gmem"}
_NO_MEMORY_SPACE = {"default", "index"}


def memory_space(space) -> str | None:
  name = str(space).lower()
  if space is None or name in _NO_MEMORY_SPACE:
    return None
  if name not in _MEMORY_SPACES:
    raise ExportError(f"memory space {space} has no pallas equivalent")
  return _MEMORY_SPACES[name]


def is_float(elt: str) -> bool:
  return elt.startswith(("f", "bf"))


@dataclasses.dataclass(frozen=True)
class TensorType:
  """A value: a scalar when `shape` is empty, else a ranked tensor."""
  shape: tuple[int, ...]
  elt: str

  def __str__(self):
    if not self.shape:
      return self.elt
    return f"tensor<{'x'.join(map(str, self.shape))}x{self.elt}>"

  def with_elt(self, elt: str) -> TensorType:
    return TensorType(self.shape, elt)

  def with_shape(self, shape) -> TensorType:
    return TensorType(tuple(shape), self.elt)


@dataclasses.dataclass(frozen=True)
class RefType:
  shape: tuple[int, ...]
  elt: str
  space: str | None = None

  def __str__(self):
    dims = "".join(f"{d}x" for d in self.shape)
    space = f", {self.space}" if self.space else ""
    return f"!pallas.ref<{dims}{self.elt}{space}>"


@dataclasses.dataclass(frozen=True)
class Value:
  name: str
  type: TensorType | RefType


def value_type(aval) -> TensorType:
  return TensorType(tuple(aval.shape), element_type(aval.dtype))


def _float_text(x, elt: str) -> str:
  """The shortest decimal that parses back to the same value, else hex."""
  np_type = NUMPY_DTYPES[elt]
  v = np_type(x)
  if np.isfinite(v):
    text = np.format_float_positional(v, unique=True, trim="0") \
        if 1e-4 <= abs(float(v)) < 1e16 or v == 0 else \
        np.format_float_scientific(v, unique=True, trim="0")
    if "." not in text:  # MLIR float literals need a decimal point.
      mant, _, exp = text.partition("e")
      text = mant + ".0" + (("e" + exp) if exp else "")
    if np_type(float(text)) == v:
      return text
  bits = np.array(v).view(f"u{np.dtype(np_type).itemsize}").item()
  return f"0x{bits:0{2 * np.dtype(np_type).itemsize}X}"


def identifier(text: str, fallback: str) -> str:
  """`text` as a symbol or SSA name: other characters become `_`."""
  name = re.sub(r"[^A-Za-z0-9_]", "_", text or "").strip("_")
  if not name or name[0].isdigit():
    name = f"{fallback}_{name}" if name else fallback
  return name


def string_text(text: str) -> str:
  """An MLIR string literal: quotes, backslashes and non-printable bytes
  escaped as `\\XX`."""
  out = []
  for ch in text:
    if ch in '"\\':
      out.append("\\" + ch)
    elif " " <= ch <= "~":
      out.append(ch)
    else:
      out.extend(f"\\{b:02X}" for b in ch.encode())
  return '"' + "".join(out) + '"'


def scalar_text(x, elt: str) -> str:
  if elt == "i1":
    return "true" if bool(x) else "false"
  if is_float(elt):
    return _float_text(x, elt)
  return str(int(x))


def dense_text(array, elt: str) -> str:
  """`dense<...>` of a NumPy array: one value when all elements agree."""
  texts = {scalar_text(v, elt) for v in np.asarray(array).reshape(-1)}
  if len(texts) == 1:  # (NaNs too, which compare unequal)
    return f"dense<{texts.pop()}>"
  def nest(a):
    if a.ndim == 0:
      return scalar_text(a.item(), elt)
    return "[" + ", ".join(nest(x) for x in a) + "]"
  return f"dense<{nest(np.asarray(array))}>"


class Emitter:
  """Collects the lines of one function body; names values %0, %1, ..."""

  def __init__(self):
    self.lines: list[str] = []
    self._depth = 1
    self._count = 0
    # Pure ops already emitted, per open region (innermost last): each
    # dominates the rest of its region and the regions inside it.
    self._pure: list[dict] = [{}]

  def fresh(self) -> str:
    name = f"%{self._count}"
    self._count += 1
    return name

  def line(self, text: str):
    self.lines.append("  " * self._depth + text)

  def label(self, text: str):
    """A block label, printed a level out as MLIR does."""
    self.lines.append("  " * (self._depth - 1) + text)

  def op(self, text: str, result: TensorType | RefType) -> Value:
    name = self.fresh()
    self.line(f"{name} = {text}")
    return Value(name, result)

  def results(self, count: int) -> tuple[str, list[str]]:
    """The binder for an op with `count` results and each result's name."""
    name = self.fresh()
    if count == 1:
      return name, [name]
    return f"{name}:{count}", [f"{name}#{i}" for i in range(count)]

  @contextlib.contextmanager
  def region(self, header: str | None = None):
    """An indented region; `header` (e.g. `} else {`) is printed first."""
    if header is not None:
      self.line(header)
    self._depth += 1
    self._pure.append({})
    try:
      yield
    finally:
      self._pure.pop()
      self._depth -= 1

  def pure(self, text: str, result: TensorType) -> Value:
    """An op without effects or operands (constants, iota, program ids):
    emitted once where it dominates every later use."""
    key = (text, str(result))
    for scope in reversed(self._pure):
      if key in scope:
        return scope[key]
    value = self.op(text, result)
    self._pure[-1][key] = value
    return value

  def constant(self, x, type_: TensorType) -> Value:
    text = (scalar_text(x, type_.elt) if not type_.shape
            else dense_text(x, type_.elt))
    if not type_.shape and type_.elt == "i1":
      return self.pure(f"arith.constant {text}", type_)  # `true` carries its type
    return self.pure(f"arith.constant {text} : {type_}", type_)
