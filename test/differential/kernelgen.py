"""Random valid Pallas kernels with independent NumPy references.

`generate(seed, count)` yields `Case`s: the kernel's MLIR text, its launch
spec, a function making random non-zero inputs, and a NumPy reference that
computes the outputs from the inputs without sharing anything with pallasc
(grid, BlockSpecs and edge padding are simulated here, in NumPy).

Each family below writes one kind of kernel; `FAMILIES` weights them.
Arrays are NumPy arrays of the logical dtype (ml_dtypes.bfloat16 for bf16);
`encode`/`decode` convert to the .npy form pallas-run reads (bf16 as <u2).
"""
import itertools
import math
import random
import re

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16
NP_DTYPE = {"f32": np.float32, "bf16": BF16, "f16": np.float16,
            "i32": np.int32, "i8": np.int8, "i1": np.bool_}
FLOATS = ("f32", "bf16", "f16")
INTS = ("i32", "i8")


def is_float(dtype):
    return dtype in FLOATS


def encode(a, dtype):
    """The .npy form of an array of `dtype` (bf16 as its bit pattern)."""
    a = np.asarray(a).astype(NP_DTYPE[dtype])
    return a.view(np.uint16) if dtype == "bf16" else a


def decode(a, dtype):
    return a.view(BF16) if dtype == "bf16" else a


def cast(a, dtype):
    """Rounds to `dtype`, as every op of that dtype does to its result."""
    return np.asarray(a).astype(NP_DTYPE[dtype])


def tensor(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype) if shape else dtype


def ref_type(shape, dtype, space=None):
    body = "x".join(map(str, shape)) + "x" + dtype if shape else dtype
    return "!pallas.ref<%s%s>" % (body, ", " + space if space else "")


def cdiv(a, b):
    return -(-a // b)


class Case:
    """One generated kernel: MLIR text, spec, inputs and reference."""

    def __init__(self, name, family, mlir, spec, make_inputs, reference, features):
        self.name = name
        self.family = family
        self.mlir = mlir
        self.spec = spec
        self.make_inputs = make_inputs  # rng -> [array]
        self.reference = reference      # [array] -> [array] (float64 or exact ints)
        self.features = features        # {"ops": set, "dtypes": set}

    @property
    def outputs(self):
        return self.spec["outputs"]


class Body:
    """SSA text builder for a kernel body."""

    def __init__(self):
        self.lines = []
        self.count = 0
        self.ops = set()

    def emit(self, text, indent=1):
        self.lines.append("  " * indent + text)

    def op(self, text, indent=1):
        name = "%%v%d" % self.count
        self.count += 1
        self.emit("%s = %s" % (name, text), indent)
        head = text.split()[0]
        if "." in head:
            self.ops.add(head)
        return name

    def const(self, value, ty, indent=1):
        if ty.startswith("tensor"):
            return self.op("arith.constant dense<%s> : %s" % (value, ty), indent)
        return self.op("arith.constant %s : %s" % (value, ty), indent)


_OP = re.compile(r"^\s*(?:%[\w#:]+ = )?([a-z_]+\.[a-z_.0-9]+)\b(.*)$")
_ELEMENT = re.compile(r"x(f32|bf16|f16|i32|i8|i1)>|: (f32|bf16|f16|i32|i8)\b")


def op_dtypes(mlir):
    """(op, element type) for every op of the kernel: the element type of
    the first type its text names (the data it loads, stores or computes
    on; for a reduction or dot, its operands)."""
    pairs = set()
    for line in mlir.splitlines()[1:]:
        m = _OP.match(line)
        if not m or m.group(1) in ("pallas.return", "scf.yield"):
            continue
        types = m.group(2).split(" : ", 1)[-1] if " : " in m.group(2) else ""
        # A store's and a select's data is their second type (after the
        # ref, or the condition).
        if m.group(1) in ("pallas.store", "arith.select"):
            types = types.split(", ", 1)[-1]
        e = _ELEMENT.search(types)
        if e:
            pairs.add((m.group(1), e.group(1) or e.group(2)))
    return sorted(pairs)


def kernel_text(name, args, body):
    params = ", ".join("%%%s: %s" % (n, t) for n, t in args)
    return "pallas.kernel @%s(%s) {\n%s\n  pallas.return\n}\n" % (
        name, params, "\n".join(body.lines))


# ---------------------------------------------------------------------------
# The grid, simulated: block extraction with zero padding past the edges.
# ---------------------------------------------------------------------------

def read_block(a, block, index):
    """The block at block `index` of `a`, padded with zeros past its edges."""
    out = np.zeros(block, dtype=a.dtype)
    src = tuple(slice(i * b, min((i + 1) * b, n)) for i, b, n in zip(index, block, a.shape))
    dst = tuple(slice(0, s.stop - s.start) for s in src)
    out[dst] = a[src]
    return out


def write_block(a, block, index, value):
    src = tuple(slice(i * b, min((i + 1) * b, n)) for i, b, n in zip(index, block, a.shape))
    dst = tuple(slice(0, s.stop - s.start) for s in src)
    a[src] = value[dst]


def run_grid(grid, ins, outs, inputs, body):
    """Runs `body(pid, blocks) -> out_blocks` for every program, in order.
    `ins`/`outs`: (block_shape, index_fn(pid)) per array; outputs start as NaN
    (floats) or a sentinel (ints) so unwritten elements show."""
    results = []
    for shape, dtype, _, _ in outs:
        fill = np.nan if is_float(dtype) else -77
        results.append(np.full(shape, fill, dtype=np.float64 if is_float(dtype) else np.int64))
    for pid in itertools.product(*[range(g) for g in grid]):
        blocks = [read_block(a, b, f(pid)) for a, (b, f) in zip(inputs, ins)]
        values = body(pid, blocks)
        for r, (shape, dtype, b, f), v in zip(results, outs, values):
            write_block(r, b, f(pid), np.asarray(v, dtype=r.dtype))
    return results


def spec_array(name, shape, dtype, block, index_map):
    d = {"name": name, "shape": list(shape), "dtype": dtype}
    if block is not None:
        d["block_shape"] = list(block)
    if index_map is not None:
        d["index_map"] = index_map
    return d


def random_values(rng, shape, dtype, lo=None, hi=None):
    """Random non-zero values of `dtype` (floats standard normal unless a
    range is given; ints small so products and sums stay exact)."""
    if is_float(dtype):
        if lo is not None:
            x = rng.uniform(lo, hi, shape)
        else:
            x = rng.standard_normal(shape)
            x[np.abs(x) < 1e-2] = 0.5
        return cast(x, dtype)
    lo = -9 if lo is None else lo
    hi = 10 if hi is None else hi
    x = rng.integers(lo, hi, shape)
    x[x == 0] = 3
    return x.astype(NP_DTYPE[dtype])


def pick_shape(r, rank, tpu=False):
    """(array shape, block shape, grid): arrays that do and don't divide."""
    if tpu and rank == 2:
        block = [8 * r.choice([1, 2]), 128]
        shape = [block[0] * r.randint(1, 3), 128 * r.randint(1, 2)]
    elif tpu:
        # Rank-1 TPU blocks: a multiple of 1024 holds for every dtype.
        block = [1024]
        shape = [1024 * r.randint(1, 2)]
    else:
        block = [r.choice([4, 8, 16, 32]) for _ in range(rank)]
        if rank == 1:
            block = [r.choice([32, 64, 128])]
        shape = []
        for b in block:
            n = b * r.randint(1, 3)
            if r.random() < 0.5:
                n -= r.randint(1, b - 1)  # does not divide: the last block overhangs
            shape.append(max(n, 1))
    grid = [cdiv(n, b) for n, b in zip(shape, block)]
    return shape, block, grid


def elementwise_signature(name, count, shape, dtype, block, grid):
    """Kernel arguments and spec of `count` inputs x0.. and one output o,
    all of `shape` and `dtype`, blocks following the program ids."""
    rt = ref_type(block, dtype)
    imap = identity_map(len(block))
    args = [("x%d" % i, rt) for i in range(count)] + [("o", rt)]
    spec = {"kernel": name, "grid": grid,
            "inputs": [spec_array("x%d" % i, shape, dtype, block, imap) for i in range(count)],
            "outputs": [spec_array("o", shape, dtype, block, imap)]}
    return args, spec


def identity_map(rank):
    names = "ijk"[:rank]
    return "(%s) -> (%s)" % (", ".join(names), ", ".join(names))


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

BIN_FLOAT = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.remf",
             "arith.maximumf", "arith.minimumf"]
BIN_INT = ["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.remsi",
           "arith.andi", "arith.ori", "arith.xori", "arith.maxsi", "arith.minsi",
           "arith.shli", "arith.shrsi"]


def np_binary(op, a, b, dtype):
    if is_float(dtype):
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        f = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
             "arith.divf": np.divide, "arith.remf": np.fmod, "arith.maximumf": np.maximum,
             "arith.minimumf": np.minimum}[op]
        return cast(f(a32, b32), dtype)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    bits = 32 if dtype == "i32" else 8
    if op == "arith.divsi":
        r = np.sign(a64) * np.sign(b64) * (np.abs(a64) // np.abs(b64))
    elif op == "arith.remsi":
        r = np.fmod(a64, b64)
    elif op == "arith.shli":
        r = a64 << b64
    elif op == "arith.shrsi":
        r = a64 >> b64
    else:
        f = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
             "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or,
             "arith.xori": np.bitwise_xor, "arith.maxsi": np.maximum,
             "arith.minsi": np.minimum}[op]
        r = f(a64, b64)
    # Two's complement wrap-around to the element width.
    r = (r + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
    return r.astype(NP_DTYPE[dtype])


def fam_elementwise(r, name):
    """A random expression tree of arith ops over one to three inputs,
    including a compare + select, on 1-D or 2-D blocks."""
    dtype = r.choice(FLOATS + INTS)
    rank = r.choice([1, 2])
    shape, block, grid = pick_shape(r, rank, tpu=r.random() < 0.3)
    nin = r.randint(1, 3)
    ty = tensor(block, dtype)
    rt = ref_type(block, dtype)
    body = Body()
    vals = []
    for i in range(nin):
        vals.append((body.op("pallas.load %%x%d[...] : %s -> %s" % (i, rt, ty)), i))
    # Program of (op, lhs index, rhs index) over the value list.
    prog = []
    ops = BIN_FLOAT if is_float(dtype) else BIN_INT
    env = [v for v, _ in vals]
    for _ in range(r.randint(1, 4)):
        op = r.choice(ops + ["select", "const"])
        # Each op reads the previous result, so every op reaches the output.
        a, b = len(env) - 1, r.randrange(len(env))
        if op == "const":
            c = r.choice([1.5, -0.75, 2.0]) if is_float(dtype) else r.choice([3, -2, 5])
            cv = body.const(c, ty)
            env.append(body.op("%s %s, %s : %s" % (
                "arith.mulf" if is_float(dtype) else "arith.addi", env[a], cv, ty)))
            prog.append(("const", a, c))
        elif op == "select":
            pred = "arith.cmpf olt" if is_float(dtype) else "arith.cmpi slt"
            m = body.op("%s, %s, %s : %s" % (pred, env[a], env[b], ty))
            env.append(body.op("arith.select %s, %s, %s : %s, %s" % (
                m, env[b], env[a], tensor(block, "i1"), ty)))
            prog.append(("select", a, b))
        else:
            rhs = env[b]
            if op in ("arith.divsi", "arith.remsi", "arith.shli", "arith.shrsi"):
                # Divisors in 1..8 and shift amounts in 0..7: defined everywhere.
                seven = body.const(7, ty)
                rhs = body.op("arith.andi %s, %s : %s" % (rhs, seven, ty))
                if op in ("arith.divsi", "arith.remsi"):
                    one = body.const(1, ty)
                    rhs = body.op("arith.addi %s, %s : %s" % (rhs, one, ty))
            env.append(body.op("%s %s, %s : %s" % (op, env[a], rhs, ty)))
            prog.append((op, a, b))
    body.emit("pallas.store %%o[...], %s : %s, %s" % (env[-1], rt, ty))
    args, spec = elementwise_signature(name, nin, shape, dtype, block, grid)

    def evaluate(xs):
        env = list(xs)
        for op, a, b in prog:
            if op == "const":
                if is_float(dtype):
                    env.append(cast(env[a].astype(np.float32) * np.float32(b), dtype))
                else:
                    env.append(np_binary("arith.addi", env[a], np.full_like(env[a], b), dtype))
            elif op == "select":
                env.append(np.where(env[a] < env[b], env[b], env[a]))
            else:
                rhs = env[b]
                if op in ("arith.divsi", "arith.remsi", "arith.shli", "arith.shrsi"):
                    rhs = (rhs.astype(np.int64) & 7)
                    if op in ("arith.divsi", "arith.remsi"):
                        rhs = rhs + 1
                    rhs = rhs.astype(NP_DTYPE[dtype])
                env.append(np_binary(op, env[a], rhs, dtype))
        return env[-1]

    def reference(inputs):
        return [evaluate(inputs)]

    return Case(name, "elementwise", kernel_text(name, args, body), spec,
                lambda g: [random_values(g, shape, dtype) for _ in range(nin)],
                reference, {"ops": body.ops, "dtypes": {dtype}})


# math op -> (numpy function, input range or None, arity, int?)
MATH_FLOAT = {
    "math.absf": (np.abs, None, 1), "math.ceil": (np.ceil, None, 1),
    "math.floor": (np.floor, None, 1), "math.trunc": (np.trunc, None, 1),
    "math.round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), None, 1),
    "math.roundeven": (np.rint, None, 1),
    "math.exp": (np.exp, (-4, 4), 1), "math.exp2": (np.exp2, (-4, 4), 1),
    "math.expm1": (np.expm1, (-2, 2), 1),
    "math.log": (np.log, (0.1, 8), 1), "math.log2": (np.log2, (0.1, 8), 1),
    "math.log10": (np.log10, (0.1, 8), 1), "math.log1p": (np.log1p, (-0.5, 4), 1),
    "math.sqrt": (np.sqrt, (0.1, 8), 1), "math.rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 8), 1),
    "math.cbrt": (np.cbrt, (-8, 8), 1),
    "math.sin": (np.sin, (-3, 3), 1), "math.cos": (np.cos, (-3, 3), 1),
    "math.tan": (np.tan, (-1.2, 1.2), 1),
    "math.sinh": (np.sinh, (-3, 3), 1), "math.cosh": (np.cosh, (-3, 3), 1),
    "math.tanh": (np.tanh, (-3, 3), 1),
    "math.asin": (np.arcsin, (-0.9, 0.9), 1), "math.acos": (np.arccos, (-0.9, 0.9), 1),
    "math.atan": (np.arctan, (-4, 4), 1),
    "math.asinh": (np.arcsinh, (-4, 4), 1), "math.acosh": (np.arccosh, (1.1, 6), 1),
    "math.atanh": (np.arctanh, (-0.9, 0.9), 1),
    "math.erf": (None, (-3, 3), 1), "math.erfc": (None, (-3, 3), 1),
    "math.powf": (np.power, (0.2, 3), 2), "math.atan2": (np.arctan2, (-4, 4), 2),
    "math.copysign": (np.copysign, None, 2),
    "math.fma": (lambda a, b, c: a * b + c, None, 3),
}
MATH_INT = {
    "math.absi": (np.abs, 1), "math.ctpop": (None, 1), "math.ctlz": (None, 1),
    "math.cttz": (None, 1),
}


def np_erf(x):
    return np.vectorize(math.erf)(x.astype(np.float64))


def np_int_bits(op, x, dtype):
    bits = 32 if dtype == "i32" else 8
    u = x.astype(np.int64) & ((1 << bits) - 1)
    out = np.zeros(u.shape, np.int64)
    for idx, v in np.ndenumerate(u):
        v = int(v)
        if op == "math.ctpop":
            out[idx] = bin(v).count("1")
        elif op == "math.ctlz":
            out[idx] = bits - v.bit_length()
        else:
            out[idx] = bits if v == 0 else (v & -v).bit_length() - 1
    return out.astype(NP_DTYPE[dtype])


def fam_math(r, name, op=None, dtype=None, tpu=None):
    """One `math` op on one to three inputs, drawn from its domain (a random
    op and dtype unless given; shapes the TPU rules accept when `tpu`)."""
    if op is None:
        if r.random() < 0.2:
            op, dtype = r.choice(sorted(MATH_INT)), r.choice(INTS)
        else:
            op, dtype = r.choice(sorted(MATH_FLOAT)), r.choice(FLOATS)
    if op in MATH_INT:
        arity = 1
        rng_range = (-100, 100)
    else:
        _, rng_range, arity = MATH_FLOAT[op]
    rank = r.choice([1, 2])
    shape, block, grid = pick_shape(r, rank, tpu=r.random() < 0.3 if tpu is None else tpu)
    ty = tensor(block, dtype)
    rt = ref_type(block, dtype)
    body = Body()
    xs = [body.op("pallas.load %%x%d[...] : %s -> %s" % (i, rt, ty)) for i in range(arity)]
    y = body.op("%s %s : %s" % (op, ", ".join(xs), ty))
    body.emit("pallas.store %%o[...], %s : %s, %s" % (y, rt, ty))
    args, spec = elementwise_signature(name, arity, shape, dtype, block, grid)

    def reference(inputs):
        if dtype in INTS:
            if op == "math.absi":
                return [np_binary("arith.addi", np.abs(inputs[0].astype(np.int64)).astype(NP_DTYPE[dtype]),
                                  np.zeros_like(inputs[0]), dtype)]
            return [np_int_bits(op, inputs[0], dtype)]
        xs64 = [x.astype(np.float64) for x in inputs]
        if op == "math.erf":
            return [np_erf(xs64[0])]
        if op == "math.erfc":
            return [1 - np_erf(xs64[0])]
        return [MATH_FLOAT[op][0](*xs64)]

    def make_inputs(g):
        if dtype in INTS:
            return [random_values(g, shape, dtype, *rng_range)]
        if op in ("math.round", "math.roundeven"):
            # No ties closer than the dtype resolves: halves are exact.
            return [cast(g.integers(-20, 20, shape) * 0.25 + 0.125 * (g.random(shape) < 0.3), dtype)
                    for _ in range(arity)]
        if rng_range is None:
            return [random_values(g, shape, dtype) for _ in range(arity)]
        return [random_values(g, shape, dtype, *rng_range) for _ in range(arity)]

    return Case(name, "math", kernel_text(name, args, body), spec, make_inputs, reference,
                {"ops": body.ops, "dtypes": {dtype}, "tol": "math"})


REDUCE_FLOAT = ["sum", "max", "min", "prod"]
REDUCE_INT = ["sum", "max", "min", "and", "or", "xor"]


def fam_reduce(r, name):
    """reduce (each kind, each axis), argmax/argmin, cumsum (either
    direction) over one 2-D block per program."""
    dtype = r.choice(["f32", "f32", "bf16", "f16", "i32"])
    kind = r.choice(["reduce", "reduce", "argmax", "argmin", "cumsum"])
    shape, block, grid = pick_shape(r, 2, tpu=r.random() < 0.3)
    axis = r.choice([0, 1])
    keep = 1 - axis
    if kind != "cumsum":
        # A reduction sees the whole reduced axis: one program along it.
        block = list(block)
        block[axis] = 1 << (shape[axis] - 1).bit_length()
    ty = tensor(block, dtype)
    rt = ref_type(block, dtype)
    imap_in = "(i, j) -> (i, j)"
    body = Body()
    x = body.op("pallas.load %%x[...] : %s -> %s" % (rt, ty))
    if kind == "cumsum":
        rev = r.random() < 0.4
        out_dtype, out_block, out_shape = dtype, block, shape
        y = body.op("pallas.cumsum %s [%d]%s : %s" % (x, axis, " {reverse}" if rev else "", ty))
        grid_out = "(i, j) -> (i, j)"
    else:
        # The output keeps the other axis; its blocks follow the program along it.
        out_block = [block[keep]]
        out_shape = [shape[keep]]
        if kind == "reduce":
            rk = r.choice(REDUCE_FLOAT if is_float(dtype) else REDUCE_INT)
            out_dtype = dtype
            y = body.op("pallas.reduce %s %s [%d] : %s -> %s" % (
                rk, x, axis, ty, tensor(out_block, dtype)))
        else:
            rk = kind
            out_dtype = "i32"
            y = body.op("pallas.%s %s [%d] : %s -> %s" % (kind, x, axis, ty, tensor(out_block, "i32")))
        grid_out = "(i, j) -> (%s)" % ("j" if axis == 0 else "i")
    grid = [cdiv(n, b) for n, b in zip(shape, block)]
    ot = ref_type(out_block, out_dtype)
    body.emit("pallas.store %%o[...], %s : %s, %s" % (y, ot, tensor(out_block, out_dtype)))
    args = [("x", rt), ("o", ot)]
    spec = {"kernel": name, "grid": grid,
            "inputs": [spec_array("x", shape, dtype, block, imap_in)],
            "outputs": [spec_array("o", out_shape, out_dtype, out_block, grid_out)]}

    def body_fn(pid, blocks):
        b = blocks[0]
        if kind == "cumsum":
            v = b.astype(np.float64) if is_float(dtype) else b.astype(np.int64)
            if rev:
                out = np.flip(np.cumsum(np.flip(v, axis), axis=axis), axis)
            else:
                out = np.cumsum(v, axis=axis)
            return [out if is_float(dtype) else np_binary("arith.addi", out, np.zeros_like(out), dtype)]
        if kind in ("argmax", "argmin"):
            f = np.argmax if kind == "argmax" else np.argmin
            return [f(b.astype(np.float64), axis=axis)]
        v = b.astype(np.float64) if is_float(dtype) else b.astype(np.int64)
        if rk == "sum":
            out = v.sum(axis=axis)
        elif rk == "prod":
            out = v.prod(axis=axis)
        elif rk == "max":
            out = v.max(axis=axis)
        elif rk == "min":
            out = v.min(axis=axis)
        elif rk == "and":
            out = np.bitwise_and.reduce(v, axis=axis)
        elif rk == "or":
            out = np.bitwise_or.reduce(v, axis=axis)
        else:
            out = np.bitwise_xor.reduce(v, axis=axis)
        return [out]

    def reference(inputs):
        ins = [(block, lambda p: p)]
        if kind == "cumsum":
            outs = [(out_shape, out_dtype, out_block, lambda p: p)]
        else:
            outs = [(out_shape, out_dtype, out_block, lambda p: (p[keep],))]
        return run_grid(grid, ins, outs, inputs, body_fn)

    def make_inputs(g):
        if kind == "reduce" and rk == "prod":
            # Products of many values stay representable.
            sign = np.where(g.random(shape) < 0.5, -1.0, 1.0)
            return [cast(sign * g.uniform(0.9, 1.1, shape), dtype)]
        return [random_values(g, shape, dtype)]

    ops = set(body.ops)
    return Case(name, "reduce", kernel_text(name, args, body), spec, make_inputs, reference,
                {"ops": ops, "dtypes": {dtype}, "tol": "reduce",
                 "reduced": block[axis] if kind != "cumsum" else block[axis]})


def fam_shape(r, name):
    """broadcast (with and without dims), transpose, reshape, concatenate of
    one 2-D block, combined with the input so every op's result is used."""
    dtype = r.choice(FLOATS + INTS)
    kind = r.choice(["broadcast_row", "broadcast_col", "transpose", "reshape", "concatenate"])
    a = r.choice([8, 16, 32])
    b = r.choice([8, 16, 32])
    progs = r.randint(1, 3)
    shape = [a * progs, b]
    block = [a, b]
    ty = tensor(block, dtype)
    rt = ref_type(block, dtype)
    body = Body()
    x = body.op("pallas.load %%x[...] : %s -> %s" % (rt, ty))
    if kind == "broadcast_row":
        row = body.op("pallas.load %%x[0, :] : %s -> %s" % (rt, tensor([b], dtype)))
        y = body.op("pallas.broadcast %s : %s -> %s" % (row, tensor([b], dtype), ty))
        out_block = block
    elif kind == "broadcast_col":
        col = body.op("pallas.load %%x[:, 1] : %s -> %s" % (rt, tensor([a], dtype)))
        y = body.op("pallas.broadcast %s dims [0] : %s -> %s" % (col, tensor([a], dtype), ty))
        out_block = block
    elif kind == "transpose":
        out_block = [b, a]
        y = body.op("pallas.transpose %s [1, 0] : %s -> %s" % (x, ty, tensor(out_block, dtype)))
    elif kind == "reshape":
        out_block = [a * b // 4, 4] if r.random() < 0.5 else [1, a * b]
        y = body.op("pallas.reshape %s : %s -> %s" % (x, ty, tensor(out_block, dtype)))
    else:
        dim = r.choice([0, 1])
        out_block = [2 * a, b] if dim == 0 else [a, 2 * b]
        y = body.op("pallas.concatenate %s, %s {dim = %d : i64} : %s, %s -> %s" % (
            x, x, dim, ty, ty, tensor(out_block, dtype)))
    if kind.startswith("broadcast"):
        y = body.op("%s %s, %s : %s" % ("arith.addf" if is_float(dtype) else "arith.addi", y, x, ty))
    ot = ref_type(out_block, dtype)
    body.emit("pallas.store %%o[...], %s : %s, %s" % (y, ot, tensor(out_block, dtype)))
    out_shape = [out_block[0] * progs, out_block[1]]
    args = [("x", rt), ("o", ot)]
    spec = {"kernel": name, "grid": [progs],
            "inputs": [spec_array("x", shape, dtype, block, "(i) -> (i, 0)")],
            "outputs": [spec_array("o", out_shape, dtype, out_block, "(i) -> (i, 0)")]}

    def body_fn(pid, blocks):
        v = blocks[0]
        if kind == "broadcast_row":
            return [np_add(np.broadcast_to(v[0:1, :], v.shape), v, dtype)]
        if kind == "broadcast_col":
            return [np_add(np.broadcast_to(v[:, 1:2], v.shape), v, dtype)]
        if kind == "transpose":
            return [v.T]
        if kind == "reshape":
            return [v.reshape(out_block)]
        return [np.concatenate([v, v], axis=dim)]

    def reference(inputs):
        return run_grid([progs], [(block, lambda p: (p[0], 0))],
                        [(out_shape, dtype, out_block, lambda p: (p[0], 0))], inputs, body_fn)

    return Case(name, "shape", kernel_text(name, args, body), spec,
                lambda g: [random_values(g, shape, dtype)], reference,
                {"ops": body.ops, "dtypes": {dtype}})


def np_add(a, b, dtype):
    if is_float(dtype):
        return cast(a.astype(np.float32) + b.astype(np.float32), dtype)
    return np_binary("arith.addi", a, b, dtype)


def np_dot(a, b, ta, tb):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    if ta:
        a = np.swapaxes(a, -1, -2)
    if tb:
        b = np.swapaxes(b, -1, -2)
    return a @ b


def fam_dot(r, name):
    """2-D or 3-D (leading batch) dots, transposed operands, an accumulator
    input, f32/bf16/f16/i8 operands, results kept in f32/i32 or truncated."""
    dtype = r.choice(["bf16", "bf16", "f16", "f16", "f32", "i8"])
    batched = r.random() < 0.3
    m, n, k = (r.choice([16, 32, 64]) for _ in range(3))
    ta, tb = r.random() < 0.3, r.random() < 0.4
    use_acc = r.random() < 0.4
    acc_dtype = "i32" if dtype == "i8" else "f32"
    out_dtype = acc_dtype if (dtype in ("f32", "i8") or r.random() < 0.5) else dtype
    bsz = [r.choice([2, 4])] if batched else []
    lhs_b = bsz + ([k, m] if ta else [m, k])
    rhs_b = bsz + ([n, k] if tb else [k, n])
    out_b = bsz + [m, n]
    progs_m = r.randint(1, 2)
    progs_n = r.randint(1, 2)
    # Grid over (M blocks, N blocks); K whole per program.
    if batched:
        lhs_shape = [bsz[0]] + ([k, m * progs_m] if ta else [m * progs_m, k])
        rhs_shape = [bsz[0]] + ([n * progs_n, k] if tb else [k, n * progs_n])
        out_shape = [bsz[0], m * progs_m, n * progs_n]
        lhs_map = "(i, j) -> (0, 0, i)" if ta else "(i, j) -> (0, i, 0)"
        rhs_map = "(i, j) -> (0, j, 0)" if tb else "(i, j) -> (0, 0, j)"
        out_map = "(i, j) -> (0, i, j)"
    else:
        lhs_shape = [k, m * progs_m] if ta else [m * progs_m, k]
        rhs_shape = [n * progs_n, k] if tb else [k, n * progs_n]
        out_shape = [m * progs_m, n * progs_n]
        lhs_map = "(i, j) -> (0, i)" if ta else "(i, j) -> (i, 0)"
        rhs_map = "(i, j) -> (j, 0)" if tb else "(i, j) -> (0, j)"
        out_map = "(i, j) -> (i, j)"
    body = Body()
    lt, rtt = tensor(lhs_b, dtype), tensor(rhs_b, dtype)
    a = body.op("pallas.load %%a[...] : %s -> %s" % (ref_type(lhs_b, dtype), lt))
    b = body.op("pallas.load %%b[...] : %s -> %s" % (ref_type(rhs_b, dtype), rtt))
    attrs = []
    if ta:
        attrs.append("transpose_lhs")
    if tb:
        attrs.append("transpose_rhs")
    if dtype == "f32":
        attrs.append('precision = "highest"')
    attr = " {%s}" % ", ".join(attrs) if attrs else ""
    at = tensor(out_b, acc_dtype)
    args = [("a", ref_type(lhs_b, dtype)), ("b", ref_type(rhs_b, dtype))]
    inputs = [spec_array("a", lhs_shape, dtype, lhs_b, lhs_map),
              spec_array("b", rhs_shape, dtype, rhs_b, rhs_map)]
    if use_acc:
        c = body.op("pallas.load %%c[...] : %s -> %s" % (ref_type(out_b, acc_dtype), at))
        d = body.op("pallas.dot %s, %s acc %s%s : %s, %s, %s -> %s" % (a, b, c, attr, lt, rtt, at, at))
        args.append(("c", ref_type(out_b, acc_dtype)))
        inputs.append(spec_array("c", out_shape, acc_dtype, out_b, out_map))
    else:
        d = body.op("pallas.dot %s, %s%s : %s, %s -> %s" % (a, b, attr, lt, rtt, at))
    if out_dtype != acc_dtype:
        d = body.op("arith.truncf %s : %s to %s" % (d, at, tensor(out_b, out_dtype)))
    ot = ref_type(out_b, out_dtype)
    body.emit("pallas.store %%o[...], %s : %s, %s" % (d, ot, tensor(out_b, out_dtype)))
    args.append(("o", ot))
    spec = {"kernel": name, "grid": [progs_m, progs_n], "inputs": inputs,
            "outputs": [spec_array("o", out_shape, out_dtype, out_b, out_map)],
            "compiler_params": {"num_warps": r.choice([4, 8])}}

    def reference(xs):
        out = np_dot(xs[0], xs[1], ta, tb)
        if use_acc:
            out = out + xs[2].astype(np.float64)
        return [out if is_float(out_dtype) else out.astype(np.int64)]

    def make_inputs(g):
        vals = [random_values(g, lhs_shape, dtype), random_values(g, rhs_shape, dtype)]
        if use_acc:
            vals.append(random_values(g, out_shape, acc_dtype))
        return vals

    return Case(name, "dot", kernel_text(name, args, body), spec, make_inputs, reference,
                {"ops": body.ops, "dtypes": {dtype}, "tol": "dot", "k": k,
                 "out_dtype": out_dtype})


def fam_loop(r, name):
    """scf.for over ds slices of a row block carrying 1-3 tensors: a running
    sum, a running max, and (with three) a dot accumulator; the trip count
    depends on the program id when asked (causal-style)."""
    dtype = r.choice(["f32", "bf16", "f16"])
    carried = r.randint(1, 3)
    dep = r.random() < 0.5
    rows = r.choice([16, 32, 64])
    step = r.choice([16, 32])
    steps = r.randint(2, 4)
    progs = r.randint(1, 3)
    cols = step * steps
    shape = [rows * progs, cols]
    block = [rows, cols]
    ty_slice = tensor([rows, step], dtype)
    rt = ref_type(block, dtype)
    f32 = lambda s: tensor(s, "f32")
    body = Body()
    c0 = body.const(0, "i32")
    c1 = body.const(1, "i32")
    cstep = body.const(step, "i32")
    if dep:
        pid = body.op("pallas.program_id 0 : i32")
        cmax = body.const(steps, "i32")
        t = body.op("arith.addi %s, %s : i32" % (pid, c1))
        ub = body.op("arith.minsi %s, %s : i32" % (t, cmax))
    else:
        ub = body.const(steps, "i32")
    inits, types = [], []
    inits.append(body.const("0.0", f32([rows])))
    types.append(f32([rows]))
    if carried >= 2:
        inits.append(body.const("-1.0e+30", f32([rows])))
        types.append(f32([rows]))
    if carried >= 3:
        inits.append(body.const("0.0", f32([rows, rows])))
        types.append(f32([rows, rows]))
    iters = ", ".join("%%it%d = %s" % (i, v) for i, v in enumerate(inits))
    name_res = "%loop"
    body.emit("%s:%d = scf.for %%k = %s to %s step %s iter_args(%s) -> (%s) : i32 {" % (
        name_res, len(inits), c0, ub, c1, iters, ", ".join(types)))
    off = body.op("arith.muli %%k, %s : i32" % cstep, 2)
    s = body.op("pallas.load %%x[:, ds(%s, %d)] : %s -> %s" % (off, step, rt, ty_slice), 2)
    s32 = s if dtype == "f32" else body.op("arith.extf %s : %s to %s" % (s, ty_slice, f32([rows, step])), 2)
    yields = []
    rs = body.op("pallas.reduce sum %s [1] : %s -> %s" % (s32, f32([rows, step]), f32([rows])), 2)
    yields.append(body.op("arith.addf %%it0, %s : %s" % (rs, f32([rows])), 2))
    if carried >= 2:
        rm = body.op("pallas.reduce max %s [1] : %s -> %s" % (s32, f32([rows, step]), f32([rows])), 2)
        yields.append(body.op("arith.maximumf %%it1, %s : %s" % (rm, f32([rows])), 2))
    if carried >= 3:
        d = body.op("pallas.dot %s, %s acc %%it2 {transpose_rhs%s} : %s, %s, %s -> %s" % (
            s, s, ', precision = "highest"' if dtype == "f32" else "",
            ty_slice, ty_slice, f32([rows, rows]), f32([rows, rows])), 2)
        yields.append(d)
    body.emit("scf.yield %s : %s" % (", ".join(yields), ", ".join(types)), 2)
    body.emit("}")
    args = [("x", rt)]
    outs = []
    for i in range(carried):
        shp = [rows] if i < 2 else [rows, rows]
        args.append(("o%d" % i, ref_type(shp, "f32")))
        body.emit("pallas.store %%o%d[...], %s#%d : %s, %s" % (i, name_res, i, ref_type(shp, "f32"), f32(shp)))
        outs.append(spec_array("o%d" % i, [rows * progs] + shp[1:], "f32", shp,
                               "(i) -> (i)" if i < 2 else "(i) -> (i, 0)"))
    body.ops.add("scf.for")
    spec = {"kernel": name, "grid": [progs],
            "inputs": [spec_array("x", shape, dtype, block, "(i) -> (i, 0)")],
            "outputs": outs}

    def reference(xs):
        x = xs[0].astype(np.float64)
        res = [np.zeros(rows * progs), np.zeros(rows * progs), np.zeros((rows * progs, rows))]
        for p in range(progs):
            blk = x[p * rows:(p + 1) * rows]
            n = min(p + 1, steps) if dep else steps
            part = blk[:, :n * step]
            res[0][p * rows:(p + 1) * rows] = part.sum(axis=1) if n else 0
            res[1][p * rows:(p + 1) * rows] = part.max(axis=1) if n else -1e30
            res[2][p * rows:(p + 1) * rows] = part @ part.T
        return res[:carried]

    return Case(name, "loop", kernel_text(name, args, body), spec,
                lambda g: [random_values(g, shape, dtype)], reference,
                {"ops": body.ops, "dtypes": {dtype}, "tol": "reduce", "reduced": cols})


def fam_online_softmax(r, name):
    """The attention inner loop: for each key block, scores = q·kᵀ, running
    max, rescaled running sum and accumulator (three carried tensors)."""
    dtype = r.choice(["f16", "bf16", "f32"])
    m = r.choice([16, 32, 64])
    d = r.choice([16, 32])
    bk = r.choice([16, 32])
    nk = r.randint(2, 3)
    seq = bk * nk
    progs = r.randint(1, 2)
    f32 = lambda s: tensor(s, "f32")
    body = Body()
    qt, kt = tensor([m, d], dtype), tensor([bk, d], dtype)
    q = body.op("pallas.load %%q[...] : %s -> %s" % (ref_type([m, d], dtype), qt))
    c0 = body.const(0, "i32")
    c1 = body.const(1, "i32")
    cb = body.const(bk, "i32")
    cn = body.const(nk, "i32")
    m0 = body.const("-1.0e+30", f32([m]))
    l0 = body.const("0.0", f32([m]))
    a0 = body.const("0.0", f32([m, d]))
    body.emit("%%loop:3 = scf.for %%j = %s to %s step %s iter_args(%%mi = %s, %%li = %s, %%acc = %s) -> (%s, %s, %s) : i32 {" % (
        c0, cn, c1, m0, l0, a0, f32([m]), f32([m]), f32([m, d])))
    off = body.op("arith.muli %%j, %s : i32" % cb, 2)
    kk = body.op("pallas.load %%k[ds(%s, %d), :] : %s -> %s" % (off, bk, ref_type([seq, d], dtype), kt), 2)
    vv = body.op("pallas.load %%v[ds(%s, %d), :] : %s -> %s" % (off, bk, ref_type([seq, d], dtype), kt), 2)
    prec = ', precision = "highest"' if dtype == "f32" else ""
    s = body.op("pallas.dot %s, %s {transpose_rhs%s} : %s, %s -> %s" % (q, kk, prec, qt, kt, f32([m, bk])), 2)
    mx = body.op("pallas.reduce max %s [1] : %s -> %s" % (s, f32([m, bk]), f32([m])), 2)
    mn = body.op("arith.maximumf %%mi, %s : %s" % (mx, f32([m])), 2)
    mb = body.op("pallas.broadcast %s dims [0] : %s -> %s" % (mn, f32([m]), f32([m, bk])), 2)
    sd = body.op("arith.subf %s, %s : %s" % (s, mb, f32([m, bk])), 2)
    p = body.op("math.exp %s : %s" % (sd, f32([m, bk])), 2)
    dm = body.op("arith.subf %%mi, %s : %s" % (mn, f32([m])), 2)
    alpha = body.op("math.exp %s : %s" % (dm, f32([m])), 2)
    ps = body.op("pallas.reduce sum %s [1] : %s -> %s" % (p, f32([m, bk]), f32([m])), 2)
    la = body.op("arith.mulf %%li, %s : %s" % (alpha, f32([m])), 2)
    ln = body.op("arith.addf %s, %s : %s" % (la, ps, f32([m])), 2)
    ab = body.op("pallas.broadcast %s dims [0] : %s -> %s" % (alpha, f32([m]), f32([m, d])), 2)
    acc_s = body.op("arith.mulf %%acc, %s : %s" % (ab, f32([m, d])), 2)
    pc = p if dtype == "f32" else body.op("arith.truncf %s : %s to %s" % (p, f32([m, bk]), tensor([m, bk], dtype)), 2)
    an = body.op("pallas.dot %s, %s acc %s%s : %s, %s, %s -> %s" % (
        pc, vv, acc_s, ' {precision = "highest"}' if dtype == "f32" else "",
        tensor([m, bk], dtype), kt, f32([m, d]), f32([m, d])), 2)
    body.emit("scf.yield %s, %s, %s : %s, %s, %s" % (mn, ln, an, f32([m]), f32([m]), f32([m, d])), 2)
    body.emit("}")
    lb = body.op("pallas.broadcast %%loop#1 dims [0] : %s -> %s" % (f32([m]), f32([m, d])))
    o = body.op("arith.divf %%loop#2, %s : %s" % (lb, f32([m, d])))
    body.emit("pallas.store %%o[...], %s : %s, %s" % (o, ref_type([m, d], "f32"), f32([m, d])))
    body.ops.add("scf.for")
    args = [("q", ref_type([m, d], dtype)), ("k", ref_type([seq, d], dtype)),
            ("v", ref_type([seq, d], dtype)), ("o", ref_type([m, d], "f32"))]
    spec = {"kernel": name, "grid": [progs],
            "inputs": [spec_array("q", [m * progs, d], dtype, [m, d], "(i) -> (i, 0)"),
                       spec_array("k", [seq, d], dtype, [seq, d], "(i) -> (0, 0)"),
                       spec_array("v", [seq, d], dtype, [seq, d], "(i) -> (0, 0)")],
            "outputs": [spec_array("o", [m * progs, d], "f32", [m, d], "(i) -> (i, 0)")],
            "compiler_params": {"num_warps": 4}}

    def reference(xs):
        q, k, v = (x.astype(np.float64) for x in xs)
        s = q @ k.T
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return [(e / e.sum(axis=1, keepdims=True)) @ v]

    def make_inputs(g):
        return [random_values(g, [m * progs, d], dtype), random_values(g, [seq, d], dtype),
                random_values(g, [seq, d], dtype)]

    return Case(name, "attention", kernel_text(name, args, body), spec, make_inputs, reference,
                {"ops": body.ops, "dtypes": {dtype}, "tol": "dot", "k": seq, "out_dtype": "f32"})


def fam_if(r, name):
    """scf.if on the program id yielding a tensor, and one without results
    that stores."""
    dtype = r.choice(FLOATS + INTS)
    shape, block, grid = pick_shape(r, 1)
    ty = tensor(block, dtype)
    rt = ref_type(block, dtype)
    add = "arith.addf" if is_float(dtype) else "arith.addi"
    mul = "arith.mulf" if is_float(dtype) else "arith.muli"
    body = Body()
    x = body.op("pallas.load %%x[...] : %s -> %s" % (rt, ty))
    pid = body.op("pallas.program_id 0 : i32")
    two = body.const(2, "i32")
    rem = body.op("arith.remsi %s, %s : i32" % (pid, two))
    zero = body.const(0, "i32")
    even = body.op("arith.cmpi eq, %s, %s : i32" % (rem, zero))
    body.emit("%%sel = scf.if %s -> (%s) {" % (even, ty))
    a = body.op("%s %s, %s : %s" % (add, x, x, ty), 2)
    body.emit("scf.yield %s : %s" % (a, ty), 2)
    body.emit("} else {")
    b = body.op("%s %s, %s : %s" % (mul, x, x, ty), 2)
    body.emit("scf.yield %s : %s" % (b, ty), 2)
    body.emit("}")
    body.emit("pallas.store %%o[...], %%sel : %s, %s" % (rt, ty))
    body.emit("scf.if %s {" % even)
    body.emit("pallas.store %%o2[...], %s : %s, %s" % (x, rt, ty), 2)
    body.emit("} else {")
    body.emit("pallas.store %%o2[...], %%sel : %s, %s" % (rt, ty), 2)
    body.emit("}")
    body.ops |= {"scf.if"}
    args = [("x", rt), ("o", rt), ("o2", rt)]
    imap = "(i) -> (i)"
    spec = {"kernel": name, "grid": grid, "inputs": [spec_array("x", shape, dtype, block, imap)],
            "outputs": [spec_array("o", shape, dtype, block, imap),
                        spec_array("o2", shape, dtype, block, imap)]}

    def body_fn(pid, blocks):
        v = blocks[0]
        if pid[0] % 2 == 0:
            s = np_add(v, v, dtype)
            return [s, v]
        if is_float(dtype):
            s = cast(v.astype(np.float32) * v.astype(np.float32), dtype)
        else:
            s = np_binary("arith.muli", v, v, dtype)
        return [s, s]

    def reference(xs):
        f = lambda p: p
        return run_grid(grid, [(block, f)], [(shape, dtype, block, f)] * 2, xs, body_fn)

    return Case(name, "if", kernel_text(name, args, body), spec,
                lambda g: [random_values(g, shape, dtype)], reference,
                {"ops": body.ops, "dtypes": {dtype}})


def fam_masked(r, name):
    """Explicit-offset loads and stores (gather/scatter) with a bounds mask
    and `other`, over an array the blocks do not divide."""
    dtype = r.choice(FLOATS + INTS)
    bsz = r.choice([32, 64, 128])
    n = bsz * r.randint(1, 3) - r.randint(1, bsz - 1)
    grid = [cdiv(n, bsz)]
    ty = tensor([bsz], dtype)
    it = tensor([bsz], "i32")
    mt = tensor([bsz], "i1")
    rt = ref_type([n], dtype)
    other = r.choice([-1, 2, 7])
    body = Body()
    pid = body.op("pallas.program_id 0 : i32")
    cb = body.const(bsz, "i32")
    base = body.op("arith.muli %s, %s : i32" % (pid, cb))
    io = body.op("pallas.iota 0 : %s" % it)
    bb = body.op("pallas.broadcast %s : i32 -> %s" % (base, it))
    offs = body.op("arith.addi %s, %s : %s" % (bb, io, it))
    limit = r.randint(n // 2, n)
    lim = body.op("arith.constant dense<%d> : %s" % (limit, it))
    m = body.op("arith.cmpi slt, %s, %s : %s" % (offs, lim, it))
    oth = body.const(float(other) if is_float(dtype) else other, ty)
    v = body.op("pallas.load %%x[%s] mask %s other %s : %s, %s -> %s" % (offs, m, oth, rt, it, ty))
    nl = body.op("arith.constant dense<%d> : %s" % (n, it))
    inb = body.op("arith.cmpi slt, %s, %s : %s" % (offs, nl, it))
    body.emit("pallas.store %%o[%s], %s mask %s : %s, %s, %s" % (offs, v, inb, rt, it, ty))
    body.ops |= {"pallas.load", "pallas.store"}
    args = [("x", rt), ("o", rt)]
    spec = {"kernel": name, "grid": grid,
            "inputs": [spec_array("x", [n], dtype, None, None)],
            "outputs": [spec_array("o", [n], dtype, None, None)]}

    def reference(xs):
        x = xs[0]
        idx = np.arange(n)
        return [np.where(idx < limit, x, cast(other, dtype))]

    return Case(name, "masked", kernel_text(name, args, body), spec,
                lambda g: [random_values(g, [n], dtype)], reference,
                {"ops": body.ops, "dtypes": {dtype}})


def fam_scratch(r, name):
    """A scratch accumulator across an `arbitrary` grid axis: zeroed at the
    first step, combined with each block, written at the last."""
    dtype = r.choice(["f32", "i32"])
    kind = r.choice(["sum", "max"])
    rows = r.choice([8, 16])
    cols = r.choice([32, 64, 128])
    shape = [rows * r.randint(1, 3) - r.randint(0, rows - 1), cols * r.randint(2, 4) - r.randint(0, cols - 1)]
    block = [rows, cols]
    grid = [cdiv(shape[0], rows), cdiv(shape[1], cols)]
    ty = tensor(block, dtype)
    vt = tensor([rows], dtype)
    rt = ref_type(block, dtype)
    st = ref_type([rows], dtype, "vmem")
    init = ("0.0" if dtype == "f32" else "0") if kind == "sum" else (
        "-1.0e+30" if dtype == "f32" else "-1000000")
    comb = {("sum", "f32"): "arith.addf", ("sum", "i32"): "arith.addi",
            ("max", "f32"): "arith.maximumf", ("max", "i32"): "arith.maxsi"}[(kind, dtype)]
    body = Body()
    k = body.op("pallas.program_id 1 : i32")
    nk = body.op("pallas.num_programs 1 : i32")
    c0 = body.const(0, "i32")
    c1 = body.const(1, "i32")
    first = body.op("arith.cmpi eq, %s, %s : i32" % (k, c0))
    body.emit("scf.if %s {" % first)
    z = body.const(init, vt, 2)
    body.emit("pallas.store %%acc[...], %s : %s, %s" % (z, st, vt), 2)
    body.emit("}")
    x = body.op("pallas.load %%x[...] : %s -> %s" % (rt, ty))
    s = body.op("pallas.reduce %s %s [1] : %s -> %s" % (kind, x, ty, vt))
    old = body.op("pallas.load %%acc[...] : %s -> %s" % (st, vt))
    new = body.op("%s %s, %s : %s" % (comb, old, s, vt))
    body.emit("pallas.store %%acc[...], %s : %s, %s" % (new, st, vt))
    kl = body.op("arith.subi %s, %s : i32" % (nk, c1))
    last = body.op("arith.cmpi eq, %s, %s : i32" % (k, kl))
    body.emit("scf.if %s {" % last)
    rr = body.op("pallas.load %%acc[...] : %s -> %s" % (st, vt), 2)
    body.emit("pallas.store %%o[...], %s : %s, %s" % (rr, ref_type([rows], dtype), vt), 2)
    body.emit("}")
    body.ops |= {"scf.if"}
    args = [("x", rt), ("o", ref_type([rows], dtype)), ("acc", st)]
    spec = {"kernel": name, "grid": grid,
            "inputs": [spec_array("x", shape, dtype, block, "(i, k) -> (i, k)")],
            "outputs": [spec_array("o", [shape[0]], dtype, [rows], "(i, k) -> (i)")],
            "scratch": [{"shape": [rows], "dtype": dtype, "memory_space": "vmem"}],
            "dimension_semantics": ["parallel", "arbitrary"]}

    def reference(xs):
        # Padding past the edge reads 0 and takes part in the reduction.
        x = xs[0].astype(np.float64 if dtype == "f32" else np.int64)
        padded = np.zeros((grid[0] * rows, grid[1] * cols), x.dtype)
        padded[:shape[0], :shape[1]] = x
        out = padded.sum(axis=1) if kind == "sum" else padded.max(axis=1)
        return [out[:shape[0]]]

    return Case(name, "scratch", kernel_text(name, args, body), spec,
                lambda g: [random_values(g, shape, dtype)], reference,
                {"ops": body.ops, "dtypes": {dtype}, "tol": "reduce", "reduced": shape[1]})


FAMILIES = [
    (fam_elementwise, 4), (fam_math, 5), (fam_reduce, 3), (fam_shape, 2),
    (fam_dot, 3), (fam_loop, 2), (fam_online_softmax, 1), (fam_if, 1),
    (fam_masked, 1), (fam_scratch, 1),
]


def math_sweep():
    """Every math op the generator knows, on every dtype it applies to."""
    return ([(op, dt) for op in sorted(MATH_FLOAT) for dt in FLOATS] +
            [(op, dt) for op in sorted(MATH_INT) for dt in INTS])


def generate(seed, count):
    """`count` random kernels of every family, then the math sweep (one
    kernel per math op and dtype, shapes random)."""
    r = random.Random(seed)
    table = [f for f, w in FAMILIES for _ in range(w)]
    for i in range(count):
        fam = table[i % len(table)] if i < len(table) else r.choice(table)
        name = "k%03d_%s" % (i, fam.__name__[4:])
        yield fam(random.Random(r.getrandbits(64)), name)
    for op, dtype in math_sweep():
        name = "m_%s_%s" % (op.split(".")[1], dtype)
        yield fam_math(random.Random(r.getrandbits(64)), name, op, dtype, tpu=True)


def tolerance(case, out_index, dtype):
    """(rtol, atol) for comparing an output of `case` with its reference,
    from the dtype and what the kernel does."""
    spec_dtype = case.outputs[out_index]["dtype"]
    tol = case.features.get("tol")
    in_dtype = next(iter(case.features["dtypes"]))
    eps = {"f32": 1.2e-7, "bf16": 7.9e-3, "f16": 9.8e-4}
    if not is_float(spec_dtype):
        return 0, 0
    e = eps[spec_dtype]
    if tol == "math":
        return 8 * e + 4e-6, 8 * e + 4e-6
    if tol == "dot":
        # Products are exact in f32; sums of k of them round in f32, then the
        # output's dtype rounds once; low-precision intermediates (attention)
        # round once more.
        k = case.features["k"]
        inner = eps[in_dtype] if in_dtype != "f32" else 1.2e-7
        return 2 * e + 2 * inner, math.sqrt(k) * (2 * inner + 1e-6) * 4
    if tol == "reduce":
        n = case.features.get("reduced", 1)
        return 4 * e + n * 1.2e-7 * 4, math.sqrt(n) * 8 * max(e, eps.get(in_dtype, e))
    return 2 * e, 2 * e
