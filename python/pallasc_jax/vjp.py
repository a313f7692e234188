"""`export_vjp(fn, *example_args)`: every pallas_call (or Pallas:MGPU
plgpu.kernel) that the forward pass and the VJP of `fn` run (jax.vjp: the
forward kernels, then the backward kernels of its custom_vjp rules), one
kernel and spec each, and a chain manifest saying where each kernel's
operands come from: an argument of `fn`, a cotangent of one of its
outputs, or an output of an earlier kernel (possibly reshaped: a row-major
reshape shares the bytes).

A value the VJP computes in XLA between kernels (attention_mgpu's delta,
the sum of a GQA group's dK) becomes a kernel of its own, synthesized from
the equations that compute it (glue.py); math with no kernel form there is
an ExportError naming the primitive. Arrays the function captured (splash
attention's mask tables) are the chain's constants, written beside it."""
from __future__ import annotations

import dataclasses
import json
import os

import jax
import numpy as np
from jax._src import core

from .errors import ExportError
from .export import Exported, export_pallas_call
from .glue import Computed, outside_kernels, structure, synthesize
from .mlir_text import element_type, identifier
from .trace import check_exportable

# Primitives whose result is its operand's bytes, read with another shape.
_VIEWS = {"squeeze", "copy", "copy_p"}
# Primitives that call one jaxpr with their operands and return its results.
_CALLS = {"pjit", "jit", "closed_call", "core_call", "custom_vjp_call",
          "custom_vjp_call_jaxpr", "custom_jvp_call", "remat", "remat2",
          "checkpoint", "named_call", "custom_vmap_call"}


@dataclasses.dataclass(frozen=True)
class Source:
  """Where a value comes from: ("input", i), ("cotangent", i),
  ("constant", i) (an array the function captured), ("kernel", k-th
  kernel, output i), or ("computed", primitive) for a value
  no kernel or view made (`computed`: its equation, where it has one).
  `shape` is the value's (a view may reshape)."""
  kind: str
  index: int
  shape: tuple
  kernel: int = -1
  primitive: str = ""
  computed: Computed | None = dataclasses.field(default=None, compare=False)

  def reshaped(self, shape) -> "Source":
    return dataclasses.replace(self, shape=tuple(int(d) for d in shape))

  def to_json(self, kernels: list, natural_shapes: dict) -> dict:
    """`natural_shapes`: "input", "cotangent" and "constant" -> their
    shapes."""
    if self.kind == "kernel":
      entry = {"kernel": kernels[self.kernel].directory, "output": self.index}
      natural = kernels[self.kernel].exported.spec["outputs"][self.index]["shape"]
    else:
      entry = {self.kind: self.index}
      natural = natural_shapes[self.kind][self.index]
    if list(self.shape) != list(natural):
      entry["shape"] = list(self.shape)
    return entry


@dataclasses.dataclass
class ChainKernel:
  exported: Exported
  directory: str           # under the chain's directory; the kernel's name
  role: str                # "forward" | "backward"
  operands: list[Source]


@dataclasses.dataclass(frozen=True)
class ExportedChain:
  manifest: dict
  kernels: list[ChainKernel]
  constants: tuple = ()  # arrays, as the manifest's "constants" lists them

  def write(self, directory: str) -> str:
    """Writes DIR/chain.json, DIR/KERNEL/{kernel.mlir,spec.json} and
    DIR/constants/NAME.npy; returns the manifest's path."""
    os.makedirs(directory, exist_ok=True)
    for k in self.kernels:
      k.exported.write(os.path.join(directory, k.directory))
    for entry, value in zip(self.manifest.get("constants", []), self.constants):
      os.makedirs(os.path.join(directory, "constants"), exist_ok=True)
      np.save(os.path.join(directory, entry["file"]), value)
    path = os.path.join(directory, "chain.json")
    with open(path, "w") as f:
      f.write(_manifest_json(self.manifest, "") + "\n")
    return path


def _arrays(fn_name: str, what: str, tree) -> list:
  leaves = jax.tree.leaves(tree)
  for leaf in leaves:
    if not hasattr(leaf, "shape") or not hasattr(leaf, "dtype"):
      raise ExportError(f"{fn_name}: {what} {leaf!r} is not an array")
  return leaves


def _is_view(eqn) -> bool:
  """Whether `eqn`'s one result is its one operand's bytes read with
  another shape: a row-major reshape (not one that transposes first:
  `dimensions`), a squeeze, a copy, a conversion to the same dtype."""
  name = eqn.primitive.name
  if len(eqn.invars) != 1 or len(eqn.outvars) != 1:
    return False
  if name == "reshape":
    dims = eqn.params.get("dimensions")
    return dims is None or tuple(dims) == tuple(range(len(dims)))
  if name == "convert_element_type":
    return eqn.invars[0].aval.dtype == eqn.outvars[0].aval.dtype
  return name in _VIEWS


def _called_jaxpr(eqn):
  """The one jaxpr a call-like equation runs with its operands, else None."""
  if eqn.primitive.name not in _CALLS:
    return None
  subs = list(core.jaxprs_in_params(eqn.params))
  if not subs:
    return None
  sub = subs[0]
  if len(sub.invars) != len(eqn.invars) or len(sub.outvars) != len(eqn.outvars):
    return None
  return sub


class _Walk:
  """Follows values through the traced forward+VJP function."""

  def __init__(self, prefix: str):
    self.prefix = prefix
    self.kernels: list[ChainKernel] = []
    self.constants: list = []  # the top-level jaxpr's captured arrays
    # What a synthesized kernel computes (glue.structure) -> its output.
    self.synthesized: dict[tuple, Source] = {}

  def source(self, env: dict, atom) -> Source:
    if isinstance(atom, core.Literal):
      return Source("computed", 0, tuple(getattr(atom.aval, "shape", ())),
                    primitive="a constant")
    return env[atom]

  def jaxpr(self, jaxpr: core.Jaxpr, sources: list[Source],
            consts=None) -> list[Source]:
    """`consts`: the values of `jaxpr`'s constvars, where known (the
    function's own jaxpr): each a constant of the chain."""
    env = dict(zip(jaxpr.invars, sources, strict=True))
    for k, var in enumerate(jaxpr.constvars):
      if consts is not None and hasattr(var.aval, "shape"):
        self.constants.append(np.asarray(consts[k]))
        env[var] = Source("constant", len(self.constants) - 1,
                          tuple(var.aval.shape))
      else:
        env[var] = Source("computed", 0, tuple(var.aval.shape),
                          primitive="a captured constant")
    for eqn in jaxpr.eqns:
      ins = [self.source(env, v) for v in eqn.invars]
      name = eqn.primitive.name
      sub = _called_jaxpr(eqn)
      if name == "pallas_call":
        outs = self.kernel(eqn, ins, export_pallas_call(check_exportable(eqn)))
      elif name == "mpmd_map":
        from .mgpu import export_mgpu_eqn  # (JAX's Mosaic GPU only when used)
        exported = Exported(*export_mgpu_eqn(eqn, [None] * len(ins)))
        outs = self.kernel(eqn, ins, exported)
      elif sub is not None:
        outs = self.jaxpr(sub, ins)
      elif _is_view(eqn) and ins[0].kind != "computed":
        outs = [ins[0].reshaped(eqn.outvars[0].aval.shape)]
      else:
        operands = tuple(v if isinstance(v, core.Literal) else env[v]
                         for v in eqn.invars)
        outs = [Source("computed", 0, tuple(getattr(v.aval, "shape", ())),
                       primitive=name, computed=Computed(eqn, operands, i))
                for i, v in enumerate(eqn.outvars)]
      for var, src in zip(eqn.outvars, outs, strict=True):
        if not isinstance(var, core.DropVar):
          env[var] = src
    return [self.source(env, v) for v in jaxpr.outvars]

  def exported(self, src: Source, what: str) -> Source:
    """`src`, or where it is computed outside any kernel, the output of a
    kernel synthesized to compute it (once per distinct computation)."""
    if src.kind != "computed":
      return src
    if src.computed is None:
      raise outside_kernels(what, src.primitive)
    key = structure(src.computed)
    if key not in self.synthesized:
      name = identifier(f"xla_{src.primitive}", "xla")
      eqn, leaves = synthesize(what, name, src.computed)
      exported = export_pallas_call(
          check_exportable(eqn),
          source=f"{what}, computed in XLA ({src.primitive})")
      self.synthesized[key] = self.kernel(eqn, leaves, exported)[0]
    return self.synthesized[key].reshaped(src.shape)

  def kernel(self, eqn, ins: list[Source], exported: Exported) -> list[Source]:
    ins = [self.exported(src, f"operand {k} of kernel {exported.kernel}")
           for k, src in enumerate(ins)]
    taken = {k.directory for k in self.kernels}
    directory, n = exported.kernel, 2
    while directory in taken:
      directory, n = f"{exported.kernel}_{n}", n + 1
    # Named after the directory (unique in the chain): kernels JAX names
    # alike get ops of their own.
    spec = {"kernel": exported.kernel, "name": f"{self.prefix}_{directory}",
            **{k: v for k, v in exported.spec.items() if k not in ("kernel", "name")}}
    exported = dataclasses.replace(exported, spec=spec)
    # The role is settled once the outputs are known (`settle_roles`).
    self.kernels.append(ChainKernel(exported, directory, "backward", ins))
    index = len(self.kernels) - 1
    return [Source("kernel", i, tuple(v.aval.shape), kernel=index)
            for i, v in enumerate(eqn.outvars)]

  def settle_roles(self, outputs: list[Source]):
    """A kernel is "forward" where the function's outputs depend on it,
    else "backward" (a VJP's kernels, recomputations included)."""
    pending = [s.kernel for s in outputs if s.kind == "kernel"]
    while pending:
      k = pending.pop()
      if self.kernels[k].role == "forward":
        continue
      self.kernels[k].role = "forward"
      pending += [s.kernel for s in self.kernels[k].operands if s.kind == "kernel"]


def export_vjp(fn, *example_args, prefix: str | None = None) -> ExportedChain:
  """`prefix` (default: the function's name) begins each kernel's
  artifact name (its spec's "name", PREFIX_KERNEL): the ops of two
  functions whose kernels JAX names alike (rms_norm's backward reuses
  layer_norm's names) stay apart."""
  fn_name = getattr(fn, "__name__", "function")
  prefix = identifier(prefix or fn_name, "f")
  for k, a in enumerate(example_args):
    if not hasattr(a, "shape") or not hasattr(a, "dtype"):
      raise ExportError(f"{fn_name}: argument {k} ({type(a).__name__}) is not "
                        "one array")
  try:
    out_shapes = jax.eval_shape(fn, *example_args)
  except Exception as e:  # Tracing runs user code: report what it raised.
    raise ExportError(f"tracing {fn_name} failed: {type(e).__name__}: "
                      f"{e}") from e
  cotangents = _arrays(fn_name, "output", out_shapes)
  n_args = len(example_args)

  def forward_and_vjp(*args):
    primals, cts = args[:n_args], args[n_args:]
    out, vjp = jax.vjp(fn, *primals)
    treedef = jax.tree.structure(out)
    return jax.tree.leaves(out), vjp(jax.tree.unflatten(treedef, list(cts)))

  try:
    closed = jax.make_jaxpr(forward_and_vjp)(*example_args, *cotangents)
  except Exception as e:
    raise ExportError(f"differentiating {fn_name} failed: "
                      f"{type(e).__name__}: {e}") from e

  walk = _Walk(prefix)
  sources = [Source("input", k, tuple(a.shape)) for k, a in
             enumerate(example_args)]
  sources += [Source("cotangent", k, tuple(c.shape)) for k, c in
              enumerate(cotangents)]
  results = walk.jaxpr(closed.jaxpr, sources, consts=closed.consts)
  if not walk.kernels:
    raise ExportError(f"{fn_name} runs no pallas_call or plgpu.kernel")
  n_out = len(cotangents)
  outputs, gradients = results[:n_out], results[n_out:]
  if len(gradients) != n_args:
    raise ExportError(f"{fn_name}: an argument that is not one array (the "
                      f"VJP returns {len(gradients)} gradients for "
                      f"{n_args} arguments)")
  if not outputs:
    raise ExportError(f"{fn_name} returns no arrays")
  outputs = [walk.exported(src, f"output {k} of {fn_name}")
             for k, src in enumerate(outputs)]
  gradients = [walk.exported(src, f"the gradient of argument {k} of "
                             f"{fn_name}") if _differentiable(arg) else src
               for k, (src, arg) in enumerate(zip(gradients, example_args))]
  walk.settle_roles(outputs)

  names = _argument_names(fn, n_args)
  outputs, gradients, constants = _used_constants(walk, outputs, gradients)
  natural = {"input": [list(a.shape) for a in example_args],
             "cotangent": [list(c.shape) for c in cotangents],
             "constant": [list(c.shape) for c in constants]}

  def where(src: Source) -> dict:
    return src.to_json(walk.kernels, natural)

  manifest = {
      "function": fn_name,
      "inputs": [_array_entry(n, a) for n, a in zip(names, example_args)],
      "cotangents": [_array_entry(f"d_out{k}" if n_out > 1 else "d_out", c)
                     for k, c in enumerate(cotangents)],
      "kernels": [{"name": k.exported.spec["name"], "kernel": k.exported.kernel,
                   "directory": k.directory,
                   "role": k.role,
                   "operands": [where(s) for s in k.operands]}
                  for k in walk.kernels],
      "outputs": [where(s) for s in outputs],
      # Integer arguments have no gradient (null).
      "gradients": [where(s) if _differentiable(a) else None
                    for s, a in zip(gradients, example_args)],
  }
  if constants:
    manifest["constants"] = [
        {"name": f"constant{k}", "shape": [int(d) for d in c.shape],
         "dtype": element_type(c.dtype), "file": f"constants/constant{k}.npy"}
        for k, c in enumerate(constants)]
  return ExportedChain(manifest, walk.kernels, tuple(constants))


def _used_constants(walk: _Walk, outputs: list, gradients: list):
  """The constants some kernel, output or gradient takes, numbered in that
  order (the sources renumbered to match): (outputs, gradients,
  constants)."""
  order: dict[int, int] = {}

  def renumber(src):
    if src is None or src.kind != "constant":
      return src
    order.setdefault(src.index, len(order))
    return dataclasses.replace(src, index=order[src.index])

  for k in walk.kernels:
    k.operands = [renumber(s) for s in k.operands]
  outputs = [renumber(s) for s in outputs]
  gradients = [renumber(s) for s in gradients]
  constants = [walk.constants[old] for old in order]
  return outputs, gradients, constants


def _differentiable(aval) -> bool:
  return jax.numpy.issubdtype(aval.dtype, jax.numpy.inexact)


def _argument_names(fn, n: int) -> list[str]:
  code = getattr(fn, "__code__", None)
  given = list(code.co_varnames[:code.co_argcount]) if code else []
  names = []
  for k in range(n):
    name = identifier(given[k] if k < len(given) else "", f"arg{k}")
    while name in names:
      name += "_"
    names.append(name)
  return names


def _array_entry(name: str, aval) -> dict:
  return {"name": name, "shape": [int(d) for d in aval.shape],
          "dtype": element_type(aval.dtype)}


def _manifest_json(x, indent: str) -> str:
  """JSON with each flat object (an array, a value's source) on one line."""
  inner = indent + "  "
  flat = lambda v: not isinstance(v, (dict, list)) or (
      isinstance(v, list) and all(not isinstance(e, (dict, list)) for e in v))
  if isinstance(x, dict) and not all(flat(v) for v in x.values()):
    items = [f"{inner}{json.dumps(k)}: {_manifest_json(v, inner)}"
             for k, v in x.items()]
    return "{\n" + ",\n".join(items) + f"\n{indent}}}"
  if isinstance(x, list) and not all(flat(v) for v in x):
    return "[\n" + ",\n".join(inner + _manifest_json(v, inner) for v in x) \
        + f"\n{indent}]"
  return json.dumps(x)
