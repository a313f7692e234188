"""Kernels for the math a VJP runs in XLA between its kernels.

JAX's backward rules often compute a small value outside their kernels:
attention_mgpu's delta (`einsum('bqhd,bqhd->bhq', out, dO)`), the sum of
a GQA group's dK. A chain runs kernels only, so each such value becomes a
kernel of its own: a gridded pallas_call that reads blocks of the values
it is computed from (the function's arguments, cotangents, earlier
kernels' outputs) and evaluates the same equations on them.

The grid comes from the axes the equations carry through unchanged. Every
axis of every value is put in a class with the axes it is the same as
(an elementwise operand's axis i is its result's axis i, a transpose
permutes them, a dot's batch axes join, ...). A class that the result
has, that no equation reduces, contracts or reshapes across, is a grid
axis; every other axis is read whole. The innermost grid axes are blocked
until a program holds some thousands of elements; the outer ones take
one index a program (the block squeezes them)."""
from __future__ import annotations

import dataclasses
import inspect

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import core

from .errors import ExportError

# Primitives applied position by position: result axis i is operand axis i
# (rank-0 operands are scalars).
ELEMENTWISE = {
    "abs", "add", "and", "ceil", "convert_element_type", "cos", "div", "eq",
    "erf", "exp", "exp2", "expm1", "floor", "ge", "gt", "integer_pow", "le",
    "log", "log1p", "logistic", "lt", "max", "min", "mul", "ne", "neg", "not",
    "or", "pow", "rem", "round", "rsqrt", "select_n", "sign", "sin", "sqrt",
    "square", "sub", "tanh", "xor", "copy", "copy_p", "stop_gradient",
}
# Of those, the identities (their operand, as the kernel sees it).
IDENTITIES = {"copy", "copy_p", "stop_gradient"}
REDUCTIONS = {"reduce_sum": jnp.sum, "reduce_max": jnp.max,
              "reduce_min": jnp.min}
SHAPING = {"transpose", "dot_general", "broadcast_in_dim", "reshape",
           "squeeze", "expand_dims", "slice"}
SUPPORTED = ELEMENTWISE | set(REDUCTIONS) | SHAPING

# About how many elements of its largest value one program holds (of the
# values a block of the grid axes scales; one read whole by every program
# counts once).
PROGRAM_ELEMENTS = 8192


def outside_kernels(what: str, primitive: str,
                    no_kernel_form: bool = False) -> ExportError:
  """The error for a value computed outside any kernel that cannot become
  a kernel: by `primitive`, or by equations it cannot follow."""
  which = ", which has no kernel form" if no_kernel_form else ""
  return ExportError(f"{what} is computed outside any kernel ({primitive})"
                     f"{which}; between kernels, views and elementwise, "
                     "reduction and dot-product math are exported")


@dataclasses.dataclass(frozen=True, eq=False)
class Computed:
  """Output `index` of `eqn`, computed outside any kernel; `operands`: per
  operand of `eqn`, where it comes from (a vjp.Source) or its
  core.Literal."""
  eqn: core.JaxprEqn
  operands: tuple
  index: int = 0


class _Classes:
  """Union-find over axes, keyed (value key, axis)."""

  def __init__(self):
    self.parent: dict = {}

  def find(self, a):
    self.parent.setdefault(a, a)
    while self.parent[a] != a:
      self.parent[a] = self.parent[self.parent[a]]
      a = self.parent[a]
    return a

  def join(self, a, b):
    ra, rb = self.find(a), self.find(b)
    if ra != rb:
      self.parent[max(ra, rb, key=repr)] = min(ra, rb, key=repr)


def _reshape_groups(old: tuple, new: tuple) -> list[tuple[list, list]]:
  """Row-major reshape old -> new as groups (old axes, new axes) whose
  element counts match, unit axes in groups of their own (an empty array:
  one group of all)."""
  if 0 in old or 0 in new:
    return [(list(range(len(old))), list(range(len(new))))]
  groups, i, j = [], 0, 0
  while i < len(old) or j < len(new):
    if i < len(old) and old[i] == 1 and (j >= len(new) or new[j] != 1):
      groups.append(([i], []))
      i += 1
      continue
    if j < len(new) and new[j] == 1 and (i >= len(old) or old[i] != 1):
      groups.append(([], [j]))
      j += 1
      continue
    gi, gj = [i], [j]
    pi, pj = old[i], new[j]
    i, j = i + 1, j + 1
    while pi != pj:
      if pi < pj:
        gi.append(i)
        pi *= old[i]
        i += 1
      else:
        gj.append(j)
        pj *= new[j]
        j += 1
    groups.append((gi, gj))
  return groups


class Glue:
  """The equations that compute one value from exported ones."""

  def __init__(self, what: str, root: Computed):
    self.what = what
    self.leaves: list = []      # vjp.Source values read, in first-use order
    self.leaf_dtypes: list = []
    self.nodes: list[Computed] = []  # in evaluation order
    self._collect(root)
    self._node_index = {id(n): k for k, n in enumerate(self.nodes)}
    self.root = root
    self.classes = _Classes()
    self.broken: set = set()    # axes (value key, axis) whose class is no grid axis
    for node in self.nodes:
      self._relate(node)

  # -- the equations ----------------------------------------------------

  def _collect(self, root: Computed):
    """The equations `root` depends on, operands before their users (a
    depth-first walk without recursion: a rule may chain many)."""
    # (A node is expanded once, when first popped: one expanded and not yet
    # listed lies on the path to the root, so its operands are listed
    # before it.)
    expanded, stack = set(), [(root, False)]
    while stack:
      node, operands_done = stack.pop()
      if operands_done:
        self.nodes.append(node)
        continue
      if id(node) in expanded:
        continue
      expanded.add(id(node))
      name = node.eqn.primitive.name
      if name not in SUPPORTED:
        raise outside_kernels(self.what, name, no_kernel_form=True)
      stack.append((node, True))
      for x, var in reversed(list(zip(node.operands, node.eqn.invars))):
        if isinstance(x, core.Literal):
          if np.ndim(x.val):
            raise ExportError(f"{self.what} is computed outside any kernel "
                              "from an array constant")
        elif x.kind == "computed":
          if x.computed is None:
            raise outside_kernels(self.what, x.primitive)
          if id(x.computed) not in expanded:
            stack.append((x.computed, False))
        elif all(x != leaf for leaf in self.leaves):
          self.leaves.append(x)
          self.leaf_dtypes.append(var.aval.dtype)

  def key(self, x):
    """A value's key: ("leaf", n) or ("node", n)."""
    if isinstance(x, Computed):
      return ("node", self._node_index[id(x)])
    if x.kind == "computed":
      return ("node", self._node_index[id(x.computed)])
    return ("leaf", next(n for n, leaf in enumerate(self.leaves) if x == leaf))

  def axis_classes(self, x) -> list:
    """The class of each axis of value `x`."""
    return [self.classes.find((self.key(x), a))
            for a in range(len(self.shape(x)))]

  def result_sizes(self) -> dict:
    """Each class of the result's axes -> that axis's size."""
    return dict(zip(self.axis_classes(self.root), self.shape(self.root)))

  @staticmethod
  def shape(x) -> tuple:
    if isinstance(x, Computed):
      return tuple(x.eqn.outvars[x.index].aval.shape)
    if isinstance(x, core.Literal):
      return ()
    return tuple(x.shape)

  def _relate(self, node: Computed):
    """Joins the classes of axes `node`'s equation keeps, breaks those it
    reduces, contracts or reshapes across."""
    eqn, name, p = node.eqn, node.eqn.primitive.name, node.eqn.params
    out = self.key(node)
    ins = [None if isinstance(x, core.Literal) else self.key(x)
           for x in node.operands]
    shapes = [self.shape(x) for x in node.operands]
    rank = len(self.shape(node))
    join = self.classes.join
    for a in range(rank):
      self.classes.find((out, a))
    for k, s in zip(ins, shapes):
      for a in range(len(s)):
        self.classes.find((k, a))

    def brk(k, a):
      self.broken.add((k, a))

    if name in ELEMENTWISE:
      for k, s in zip(ins, shapes):
        if k is not None and len(s) == rank:
          for a in range(rank):
            join((out, a), (k, a))
    elif name in REDUCTIONS:
      kept = [a for a in range(len(shapes[0])) if a not in p["axes"]]
      for a in p["axes"]:
        brk(ins[0], a)
      for o, a in enumerate(kept):
        join((out, o), (ins[0], a))
    elif name == "transpose":
      for o, a in enumerate(p["permutation"]):
        join((out, o), (ins[0], a))
    elif name == "dot_general":
      (lc, rc), (lb, rb) = p["dimension_numbers"]
      lfree = [a for a in range(len(shapes[0])) if a not in lc and a not in lb]
      rfree = [a for a in range(len(shapes[1])) if a not in rc and a not in rb]
      if lfree and rfree:
        raise ExportError(f"{self.what} is computed outside any kernel by a "
                          "matrix product (dot_general with free axes on "
                          "both sides); write it as a kernel")
      for a, b in zip(lc, rc):
        join((ins[0], a), (ins[1], b))
        brk(ins[0], a)
      for o, (a, b) in enumerate(zip(lb, rb)):
        join((out, o), (ins[0], a))
        join((out, o), (ins[1], b))
      for o, a in enumerate(lfree + rfree, start=len(lb)):
        join((out, o), (ins[0] if lfree else ins[1], a))
    elif name == "broadcast_in_dim":
      for a, o in enumerate(p["broadcast_dimensions"]):
        if shapes[0][a] == self.shape(node)[o]:
          join((out, o), (ins[0], a))
        else:  # a unit axis stretched: read whole, never a grid axis
          brk(ins[0], a)
          brk(out, o)
    elif name == "slice":
      if any(int(st) != 1 for st in p.get("strides") or ()):
        raise ExportError(f"{self.what} is computed outside any kernel by a "
                          "strided slice, which has no kernel form here")
      for a, (lo, hi) in enumerate(zip(p["start_indices"], p["limit_indices"])):
        if lo == 0 and hi == shapes[0][a]:  # the whole axis passes
          join((out, a), (ins[0], a))
        else:
          brk(ins[0], a)
          brk(out, a)
    elif name in ("squeeze", "reshape", "expand_dims"):
      groups = _reshape_groups(shapes[0], self.shape(node))
      for old, new in groups:
        if len(old) == 1 and len(new) == 1:
          join((out, new[0]), (ins[0], old[0]))
        else:
          for a in old:
            brk(ins[0], a)
          for o in new:
            brk(out, o)
    else:  # (SUPPORTED and these branches agree)
      raise AssertionError(name)

  # -- the grid ---------------------------------------------------------

  def plan(self) -> tuple[list, dict]:
    """(the grid's classes, outermost first; per grid class its block:
    None where programs take one index, else the indices one program
    takes). Inner grid axes are blocked until a program holds about
    PROGRAM_ELEMENTS elements of its largest value."""
    classes = self.axis_classes
    broken = {self.classes.find(a) for a in self.broken}
    values = self.leaves + self.nodes
    seen_twice = set()
    for x in values:
      seen_twice |= {c for c in classes(x) if classes(x).count(c) > 1}
    grid = [c for c in classes(self.root) if c not in broken | seen_twice]
    sizes = self.result_sizes()
    # Elements per grid index of each value a block scales.
    whole = max([int(np.prod([d for c, d in zip(classes(x), self.shape(x))
                              if c not in grid]))
                 for x in values if set(classes(x)) & set(grid)] or [1])
    budget = max(1, PROGRAM_ELEMENTS // max(whole, 1))
    # A block of an operand's or the result's last axis is a multiple of
    # 128 elements, of the one before a multiple of 8 (TPU tiles; GPUs do
    # not mind): blocks of other sizes round to those, or to the whole
    # axis.
    quantum = {c: 1 for c in grid}
    for x in self.leaves + [self.root]:  # (the blocks: operands and result)
      for c, q in zip(reversed(classes(x)), (128, 8)):
        if c in quantum:
          quantum[c] = max(quantum[c], q)
    blocks = {}
    for c in reversed(grid):
      if sizes[c] == 1:  # (no unit axes in the kernel's values)
        blocks[c] = None
      elif sizes[c] <= budget:
        blocks[c] = sizes[c]
        budget //= sizes[c]
      elif budget > 1 or quantum[c] == 128:
        block = 1 << (max(budget, 1).bit_length() - 1)
        block = max(quantum[c], block // quantum[c] * quantum[c])
        blocks[c] = sizes[c] if block >= sizes[c] else block
        budget = 1
      else:
        blocks[c] = None
    return grid, blocks

  # -- the kernel -------------------------------------------------------

  def pallas_call(self, name: str):
    """The synthesized pallas_call and its operands' avals."""
    from jax.experimental import pallas as pl
    grid, blocks = self.plan()
    sizes = self.result_sizes()
    grid_sizes = tuple(-(-sizes[c] // (blocks[c] or 1)) for c in grid)

    def axis_block(x, a):
      """Block size of axis a of x: None (squeezed), or the indices read."""
      c = self.axis_classes(x)[a]
      return blocks[c] if c in grid else self.shape(x)[a]

    def spec(x):
      block = tuple(axis_block(x, a) for a in range(len(self.shape(x))))
      position = self.axis_classes(x)

      def index_map(*ids):
        return tuple(ids[grid.index(c)] if c in grid else 0 for c in position)
      return pl.BlockSpec(block, index_map)

    def kept(x):
      return [a for a in range(len(self.shape(x)))
              if axis_block(x, a) is not None]

    def body(*refs):
      values = {}
      for leaf, ref in zip(self.leaves, refs):
        values[self.key(leaf)] = ref[...]
      for node in self.nodes:
        values[self.key(node)] = self._evaluate(node, values, kept, axis_block)
      refs[-1][...] = values[self.key(self.root)].astype(refs[-1].dtype)

    # Parameters named after what they hold (the spec's operand names).
    names = []
    for leaf in self.leaves:  # (a value read through two views: two)
      given, n = _leaf_name(leaf), 2
      while given in names:
        given, n = f"{_leaf_name(leaf)}_{n}", n + 1
      names.append(given)
    names.append("result")
    body.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY)
         for n in names])
    root_aval = self.root.eqn.outvars[self.root.index].aval
    call = pl.pallas_call(
        body, grid=grid_sizes, name=name,
        in_specs=[spec(x) for x in self.leaves], out_specs=spec(self.root),
        out_shape=jax.ShapeDtypeStruct(root_aval.shape, root_aval.dtype))
    avals = [jax.ShapeDtypeStruct(leaf.shape, dtype)
             for leaf, dtype in zip(self.leaves, self.leaf_dtypes)]
    return call, avals

  def _evaluate(self, node: Computed, values: dict, kept, axis_block):
    """`node`'s equation on blocks: every value holds its kept axes."""
    eqn, name, p = node.eqn, node.eqn.primitive.name, dict(node.eqn.params)

    def operand(x):
      if isinstance(x, core.Literal):
        return jnp.asarray(x.val, x.aval.dtype)
      return values[self.key(x)]

    ins = [operand(x) for x in node.operands]
    kin = [[] if isinstance(x, core.Literal) else kept(x)  # (scalars)
           for x in node.operands]
    kout = kept(node)
    if name in ELEMENTWISE:
      if name in IDENTITIES:
        return ins[0]
      return eqn.primitive.bind(*ins, **p)
    if name in REDUCTIONS:
      axes = tuple(kin[0].index(a) for a in p["axes"])
      return REDUCTIONS[name](ins[0], axis=axes)
    if name == "transpose":
      perm = p["permutation"]
      return jnp.transpose(ins[0], [kin[0].index(perm[o]) for o in kout])
    if name == "dot_general":
      return self._dot(node, ins, kin, kout)
    if name == "broadcast_in_dim":
      x, dims = ins[0], p["broadcast_dimensions"]
      # Operand axes whose result axis is a grid axis are unit or squeezed.
      drop = [kin[0].index(a) for a in kin[0] if dims[a] not in kout]
      x = jnp.squeeze(x, axis=tuple(drop)) if drop else x
      shape = tuple(axis_block(node, o) for o in kout)
      return jax.lax.broadcast_in_dim(
          x, shape, tuple(kout.index(dims[a]) for a in kin[0]
                          if dims[a] in kout))
    if name == "slice":
      # A grid axis is sliced whole: its block passes as it is.
      source = node.operands[0]
      starts, limits = [], []
      for a in kin[0]:
        lo, hi = int(p["start_indices"][a]), int(p["limit_indices"][a])
        whole = lo == 0 and hi == self.shape(source)[a]
        starts.append(lo)
        limits.append(axis_block(source, a) if whole else hi)
      return jax.lax.slice(ins[0], starts, limits)
    # squeeze, reshape, expand_dims: grid axes pass one to one.
    return jnp.reshape(ins[0], tuple(axis_block(node, o) for o in kout))

  def _dot(self, node: Computed, ins, kin, kout):
    """A dot with free axes on one side at most: multiply and sum."""
    p = node.eqn.params
    (lc, rc), (lb, rb) = p["dimension_numbers"]
    lhs, rhs = ins
    dtype = p.get("preferred_element_type") or node.eqn.outvars[0].aval.dtype
    lhs, rhs = lhs.astype(dtype), rhs.astype(dtype)
    ranks = [len(self.shape(x)) for x in node.operands]
    lfree = [a for a in range(ranks[0]) if a not in lc and a not in lb]
    rfree = [a for a in range(ranks[1]) if a not in rc and a not in rb]
    # Both operands in the result's axis order, then the contracted axes.
    lorder = list(lb) + lfree + list(lc)
    rorder = list(rb) + rfree + list(rc)
    lorder = [a for a in lorder if a in kin[0]]
    rorder = [a for a in rorder if a in kin[1]]
    lhs = jnp.transpose(lhs, [kin[0].index(a) for a in lorder])
    rhs = jnp.transpose(rhs, [kin[1].index(a) for a in rorder])
    n_batch = len([a for a in lb if a in kin[0]])
    n_free = len([a for a in lfree + rfree if a in (kin[0] if lfree else kin[1])])
    if lfree:
      rhs = jnp.expand_dims(rhs, tuple(range(n_batch, n_batch + n_free)))
    elif rfree:
      lhs = jnp.expand_dims(lhs, tuple(range(n_batch, n_batch + n_free)))
    product = lhs * rhs
    n_contract = len(lc)
    axes = tuple(range(product.ndim - n_contract, product.ndim))
    return jnp.sum(product, axis=axes) if axes else product


def structure(x) -> tuple:
  """What `x` (a Computed, a vjp.Source or a Literal) computes, as a
  hashable key: equal keys, equal values (JAX repeats a broadcast for each
  kernel that takes it; one kernel computes it for all). Each equation
  appears once, its operands named by their place in the listing."""
  listing, place = [], {}

  def atom(v):
    if isinstance(v, core.Literal):
      return ("literal", repr(v.val), str(v.aval.dtype))
    if isinstance(v, Computed):
      return ("node", place[id(v)])
    if v.kind == "computed":
      return ("node", place[id(v.computed)]) if v.computed is not None \
          else ("opaque", id(v))
    return ("source", v.kind, v.index, v.kernel, tuple(v.shape))

  root = x.computed if not isinstance(x, (Computed, core.Literal)) and \
      x.kind == "computed" else x
  if not isinstance(root, Computed):
    return atom(root)
  # Post-order without recursion (as Glue._collect walks).
  expanded, stack = set(), [(root, False)]
  while stack:
    node, done = stack.pop()
    if done:
      params = tuple(sorted((k, repr(v)) for k, v in node.eqn.params.items()))
      place[id(node)] = len(listing)
      listing.append((node.eqn.primitive.name, params, node.index,
                      tuple(atom(o) for o in node.operands)))
      continue
    if id(node) in expanded:
      continue
    expanded.add(id(node))
    stack.append((node, True))
    for o in node.operands:
      c = o if isinstance(o, Computed) else getattr(o, "computed", None)
      if c is not None and id(c) not in expanded:
        stack.append((c, False))
  return tuple(listing)


def _leaf_name(leaf) -> str:
  if leaf.kind == "kernel":
    return f"kernel{leaf.kernel}_out{leaf.index}"
  return f"{leaf.kind}{leaf.index}"


def synthesize(what: str, name: str, root: Computed):
  """(the pallas_call equation computing `root`, the leaf Sources it reads,
  in operand order)."""
  glue = Glue(what, root)
  call, avals = glue.pallas_call(name)
  try:
    closed = jax.make_jaxpr(call)(*avals)
  except Exception as e:
    raise ExportError(f"{what}: its kernel could not be traced: "
                      f"{type(e).__name__}: {e}") from e
  eqns = [e for e in closed.jaxpr.eqns if e.primitive.name == "pallas_call"]
  return eqns[0], glue.leaves
