#!/usr/bin/env python3
"""GPU check, step 2b (bench/gpu/run.sh runs it): times our CUDA artifacts
against references, all in one process with one harness.

Our cubins are loaded with ctypes over libcuda (cuModuleLoadData,
cuModuleGetFunction, cuLaunchKernel on torch's current stream, torch tensors'
data_ptr()s, geometry from our manifest). Cases:
  (a) vector add, 2^26 f32: ours vs device-to-device copy bandwidth (torch
      dst.copy_(src)), torch.add, a hand-written CUDA kernel (the self-test
      cubin), Triton, JAX Pallas;
  (b) row softmax 4096x1000 f32: ours vs torch.softmax, Triton (tutorial
      style), JAX Pallas;
  (c) GEMM (f32 accumulate, output in the input dtype), bf16 and f16 at
      4096^3 and 8192^3 and bf16 8192x8192x1024: ours vs torch.matmul
      (cuBLAS), Triton's tutorial matmul (and JAX Pallas at bf16 4096^3);
  (d) flash attention forward, B=4 H=16 S=4096 D=128 (bf16, bf16 causal,
      f16): ours (sm_90a cubins, and our Triton-target .ttir compiled by
      triton.compile) vs torch SDPA (cuDNN, flash), a Triton fused attention
      in the style of Triton's tutorial, JAX Pallas's attention ops (Triton
      backend, Mosaic GPU).
Every implementation is checked against torch before it is timed.

Timing: per implementation, 50 batches of K launches; a batch on torch's
stream is bracketed by CUDA events after a torch.cuda._sleep that keeps the
GPU busy while the launches queue up (so launch overhead is hidden); JAX runs
on its own stream, so a JAX batch is one jitted call of K chained calls,
bracketed by events after a device synchronize and ended by block_until_ready
(one dispatch per batch, amortized over K). Reported: median and min over the
batches of time per launch. Softmax rotates over 4 buffer sets (more than L2).
Prints a markdown table; writes it to $OUT/results.md (when OUT is set) and to
.device/gpu/results.md.
"""
import ctypes
import functools
import glob
import json
import math
import os
import re
import statistics
import sys
import time
import traceback

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import numpy as np
import torch
import triton
import triton.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GPU_DIR = os.environ.get("PALLAS_GPU_DIR", os.path.join(ROOT, ".device", "gpu"))
REPS = 50
torch.manual_seed(0)
dev = torch.device("cuda")


# --------------------------------------------------------------------------
# Our cubins through the driver API.
class CudaError(RuntimeError):
    pass


class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.check(self.lib.cuInit(0), "cuInit")
        torch.cuda.init()
        d = ctypes.c_int(0)
        self.check(self.lib.cuDeviceGet(ctypes.byref(d), torch.cuda.current_device()),
                   "cuDeviceGet")
        ctx = ctypes.c_void_p()
        # torch's own (primary) context, current on this thread.
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), d),
                   "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self.lib.cuLaunchKernel.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
            ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
            ctypes.c_void_p, ctypes.c_void_p]

    def check(self, r, what):
        if r != 0:
            name = ctypes.c_char_p()
            self.lib.cuGetErrorName(r, ctypes.byref(name))
            raise CudaError(f"{what} failed: {name.value.decode() if name.value else r}")


def pick_cubin(cubins, cap):
    """Same rule as pallas-launch: same major, highest minor <= the device's;
    'a' (arch-specific) only for exactly that chip; at a tie the more specific."""
    best = None
    for arch, f in cubins.items():
        num = "".join(c for c in arch[3:] if c.isdigit())
        suffix = arch[3 + len(num):]
        major, minor = int(num) // 10, int(num) % 10
        if major != cap[0] or minor > cap[1] or (suffix == "a" and minor != cap[1]):
            continue
        key = (minor, {"a": 2, "f": 1}.get(suffix, 0))
        if best is None or key > best[0]:
            best = (key, arch, f)
    if best is None:
        raise CudaError(f"no cubin for sm_{cap[0]}{cap[1]}; the artifact holds {', '.join(cubins)}")
    return best[1], best[2]


def tensor_map(lib, base, m, sizes=None):
    """A CUtensorMap (128 bytes on 64) for a manifest's launch.tensor_maps
    entry over the array at `base`: (its buffer, its address). Dims named
    by a symbolic size take its value from `sizes`."""
    buf = ctypes.create_string_buffer(128 + 64)
    addr = (ctypes.addressof(buf) + 63) // 64 * 64
    b = m["element_bytes"]
    d = [sizes[x] if isinstance(x, str) else x for x in m["dims"]]
    # Byte strides of dims 1 on where the manifest gives them (rows
    # permuted within 16: a 5-D view).
    n = len(d)
    dims = (ctypes.c_uint64 * n)(*d)
    strides = (ctypes.c_uint64 * (n - 1))(*m.get("strides", [d[0] * b]))
    box = (ctypes.c_uint32 * n)(*m["box"])
    unit = (ctypes.c_uint32 * n)(*([1] * n))
    # CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32/64, or what reducing stores add as.
    dtype = m.get("data_type", {1: 0, 2: 1, 4: 2, 8: 4}[b])
    r = lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(addr), ctypes.c_int(dtype), ctypes.c_uint32(n), ctypes.c_void_p(base),
        dims, strides, box, unit, ctypes.c_int(0),  # no interleave
        # 128B or 64B swizzle (or none), L2 256B, no OOB NaN
        ctypes.c_int({0: 0, 64: 2, 128: 3}[m.get("swizzle_bytes", 128)]), ctypes.c_int(3),
        ctypes.c_int(0))
    if r:
        raise CudaError(f"cuTensorMapEncodeTiled failed: {r}")
    return buf, addr


class OurKernel:
    """A CUDA artifact of ours: manifest + the cubin for this device."""

    def __init__(self, drv, art_dir, name=None):
        paths = glob.glob(os.path.join(art_dir, (name or "*") + ".manifest.json"))
        if len(paths) != 1:
            raise CudaError(f"{art_dir}: {len(paths)} manifests")
        self.drv, self.m = drv, json.load(open(paths[0]))
        if self.m.get("target_kind") != "cuda":
            raise CudaError(f"{paths[0]} is not a CUDA artifact")
        L = self.m["launch"]
        self.arch, cubin = pick_cubin(L["cubins"], torch.cuda.get_device_capability())
        image = open(os.path.join(art_dir, cubin), "rb").read()
        self.module, self.fn = ctypes.c_void_p(), ctypes.c_void_p()
        drv.check(drv.lib.cuModuleLoadData(ctypes.byref(self.module), image), "cuModuleLoadData")
        drv.check(drv.lib.cuModuleGetFunction(ctypes.byref(self.fn), self.module,
                                              L["function"].encode()), "cuModuleGetFunction")
        self.grid, self.block, self.shared = L["grid"], L["block"], int(L["shared_bytes"])
        if self.shared > 48 * 1024:
            drv.check(drv.lib.cuFuncSetAttribute(self.fn, 8, self.shared),  # MAX_DYNAMIC_SHARED_SIZE_BYTES
                      "cuFuncSetAttribute")
        self.params = self.m["parameters"]
        # Persistent CTAs in clusters: as many clusters as run at once, as
        # the header and pallas-launch start.
        c = L.get("cluster", [1])[0]
        if c > 1 and L.get("persistent"):
            self.grid = [min(self.grid[0], c * max_active_clusters(
                drv.lib, self.fn, self.grid[0], self.block[0], self.shared, c)), 1, 1]

    def bind(self, *tensors):
        """A launcher for these tensors (one per manifest parameter, in
        manifest order; an aliased output is passed its input's tensor).
        Symbolic sizes (manifest "sizes") are bound from the tensors' shapes
        and follow the pointers as int32; the grid's expressions are
        evaluated with them."""
        if len(tensors) != len(self.params):
            raise CudaError(f"{len(self.params)} parameters, {len(tensors)} tensors")
        sizes = {}
        for t, p in zip(tensors, self.params):
            ok = len(t.shape) == len(p["shape"])
            for got, want in zip(t.shape, p["shape"]):
                if isinstance(want, str):
                    ok = ok and sizes.setdefault(want, got) == got
                else:
                    ok = ok and got == want
            if not ok:
                raise CudaError(f"{p['name']}: shape {list(t.shape)} vs manifest {p['shape']}")
        ptrs = [ctypes.c_uint64(t.data_ptr()) for t in tensors]
        ptrs += [ctypes.c_int32(sizes[s["name"]]) for s in self.m.get("sizes", [])]
        maps = [tensor_map(self.drv.lib, tensors[m["param"]].data_ptr(), m, sizes)
                for m in self.m["launch"].get("tensor_maps", {}).get(self.arch, [])]
        args = (ctypes.c_void_p * (len(ptrs) + len(maps)))(
            *[ctypes.addressof(p) for p in ptrs], *[addr for _, addr in maps])
        env = dict(sizes, cdiv=lambda a, b: -(-a // b), min=min, max=max)
        g = [e if isinstance(e, int) else eval(e, {"__builtins__": {}}, env) for e in self.grid]
        b, lib, fn, sh = self.block, self.drv.lib, self.fn, self.shared

        def launch():
            r = lib.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], sh,
                                   torch.cuda.current_stream().cuda_stream, args, None)
            if r:
                self.drv.check(r, "cuLaunchKernel")
        launch.keep = (ptrs, maps, args, tensors)
        return launch


class _LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint * 16)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttribute)), ("num_attrs", ctypes.c_uint)]


def few_ctas(k):
    """A small persistent grid: 7 CTAs, or in clusters the next multiple of
    the cluster (8 for clusters of 2)."""
    c = k.m["launch"].get("cluster", [1])[0]
    return (7 + c - 1) // c * c


def max_active_clusters(lib, fn, grid_x, block_x, shared, cluster):
    """cuOccupancyMaxActiveClusters for clusters of `cluster` CTAs along x."""
    attr = _LaunchAttribute(id=4)  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value[0], attr.value[1], attr.value[2] = cluster, 1, 1
    config = _LaunchConfig()
    config.grid[:] = [grid_x, 1, 1]
    config.block[:] = [block_x, 1, 1]
    config.shared, config.attrs, config.num_attrs = shared, ctypes.pointer(attr), 1
    n = ctypes.c_int(0)
    r = lib.cuOccupancyMaxActiveClusters(ctypes.byref(n), fn, ctypes.byref(config))
    if r or n.value <= 0:
        raise CudaError(f"cuOccupancyMaxActiveClusters failed: {r}")
    return n.value


# --------------------------------------------------------------------------
# Timing.
def time_stream(fns, K):
    """fns: launchers on torch's stream, rotated. Returns per-launch ms list."""
    for f in fns * 2:
        f()
    torch.cuda.synchronize()
    # Estimate the CPU cost of queueing K launches, and sleep longer than it.
    t0 = time.perf_counter()
    for k in range(K):
        fns[k % len(fns)]()
    enqueue = time.perf_counter() - t0
    torch.cuda.synchronize()
    cycles = int(max(2e-3, 3 * enqueue) * 2.0e9)
    out = []
    for r in range(REPS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles)
        s.record()
        for k in range(K):
            fns[k % len(fns)]()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / K)
    return out


def time_jax(batch, args):
    """batch: a jitted function running K chained calls; returns per-launch ms."""
    import jax
    K = batch.K
    for _ in range(3):
        jax.block_until_ready(batch(*args))
    out = []
    for r in range(REPS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        s.record()
        jax.block_until_ready(batch(*args))
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / K)
    return out


def jax_chain(kernel, arg_sets, K):
    """One jitted call of K calls of `kernel`, rotating over arg_sets; each
    call's inputs pass through an optimization barrier with the previous
    call's output (so no call can be merged with another or moved before
    it), and every output is returned (so none is dropped as dead)."""
    import jax

    def run(*sets):
        outs = []
        for k in range(K):
            a = sets[k % len(sets)]
            if outs:
                a, _ = jax.lax.optimization_barrier((a, outs[-1]))
            outs.append(kernel(*a))
        return tuple(outs)
    f = jax.jit(run)
    g = lambda *a: f(*a)
    g.K = K
    return g, tuple(tuple(s) for s in arg_sets)


# --------------------------------------------------------------------------
# Correctness helpers.
def normwise(got, want):
    got, want = got.double(), want.double()
    if torch.isnan(got).any():
        return float("inf")
    return float(torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want))


class WrongResult(AssertionError):
    pass


def check_normwise(got, want, impl, tol=1e-2):
    """After the stream is done: `got` within `tol` normwise of `want`
    (bf16 outputs, f32 accumulation); the error as a note."""
    torch.cuda.synchronize()
    err = normwise(got.float(), want)
    if not err <= tol:
        raise WrongResult(f"{impl}: normwise error {err:.3g}")
    return f"err {err:.1e}"


def to_jax(t):
    import jax.numpy as jnp
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        return jnp.asarray(t.view(torch.int16).cpu().numpy().view(ml_dtypes.bfloat16))
    return jnp.asarray(t.cpu().numpy())


def from_jax(a):
    a = np.array(a)  # a writable copy
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).to(dev)
    return torch.from_numpy(a).to(dev)


# --------------------------------------------------------------------------
rows = []   # (section, impl, median_ms, min_ms, rate, rate_unit, note)


def record(section, impl, times, work, unit, note=""):
    med, mn = statistics.median(times), min(times)
    rate = work / (med * 1e-3) / (1e9 if unit == "GB/s" else 1e12)
    rows.append((section, impl, med, mn, rate, unit, note))
    print(f"  {impl:42s} {med * 1e3:9.1f} us (min {mn * 1e3:.1f})  {rate:8.1f} {unit}  {note}",
          flush=True)


def failed(section, impl, why):
    rows.append((section, impl, None, None, None, "", why))
    print(f"  {impl:42s} {why}", flush=True)


def attempt(section, impl, fn):
    try:
        fn()
    except Exception as e:  # a reference that fails is reported, not fatal
        msg = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        failed(section, impl, "failed: " + msg)
        if os.environ.get("BENCH_TRACEBACK"):
            traceback.print_exc()


def not_compiled(case, target):
    """'not compiled', with pallasc's first error where prepare.sh kept one."""
    why = "not compiled"
    err = os.path.join(GPU_DIR, case, target + ".error")
    if os.path.exists(err):
        lines = [l for l in open(err).read().splitlines() if "error:" in l]
        if lines:
            why += " (" + lines[0].split("error:", 1)[1].strip()[:90] + ")"
    return why


def ours(drv, case, section, label="ours (pallasc sm_90a)"):
    art = os.path.join(GPU_DIR, case, "sm_90a")
    if not os.path.isdir(art):
        failed(section, label, not_compiled(case, "sm_90a"))
        return None
    if drv is None:
        failed(section, label, "no CUDA driver through ctypes")
        return None
    return OurKernel(drv, art)


def main():
    print(f"device: {torch.cuda.get_device_name()} (sm_{''.join(map(str, torch.cuda.get_device_capability()))}), "
          f"torch {torch.__version__}, triton {triton.__version__}", flush=True)
    try:
        drv = Driver()
    except Exception as e:
        print(f"cannot use libcuda through ctypes: {e}")
        drv = None
    # BENCH_ONLY=attention (a comma list of add, softmax, matmul, f8,
    # attention, attention_d256, attention_f8) times only those sections.
    sections = set(os.environ.get("BENCH_ONLY",
                                  "add,softmax,matmul,f8,attention,attention_d256,attention_f8").split(","))

    if "add" in sections:
        # ---------------------------------------------------------------- (a)
        S = "vector add 2^26 f32"
        print(f"\n{S}", flush=True)
        N = 1 << 26
        x = torch.randn(N, device=dev); y = torch.randn(N, device=dev)
        want = x + y
        add_bytes, copy_bytes = 3 * 4 * N, 2 * 4 * N
        K = 10

        def copy_ref():
            dst = torch.empty_like(x)
            dst.copy_(x); torch.cuda.synchronize()
            assert torch.equal(dst, x)
            record(S, "torch copy_ (D2D, 2x4 B/elem)", time_stream([lambda: dst.copy_(x)], K),
                   copy_bytes, "GB/s")
        attempt(S, "torch copy_ (D2D, 2x4 B/elem)", copy_ref)

        def check_add(o, impl):
            torch.cuda.synchronize()
            if not torch.equal(o, want):
                raise AssertionError(f"{impl}: wrong result (max err {(o - want).abs().max().item():.3g})")

        def torch_add():
            o = torch.empty_like(x)
            torch.add(x, y, out=o); check_add(o, "torch.add")
            record(S, "torch.add", time_stream([lambda: torch.add(x, y, out=o)], K), add_bytes, "GB/s")
        attempt(S, "torch.add", torch_add)

        def run_ours_add():
            k = ours(drv, "vector_add", S)
            if k is None:
                return
            o = torch.full_like(x, float("nan"))
            f = k.bind(x, y, o); f(); check_add(o, "ours")
            record(S, "ours (pallasc sm_90a)", time_stream([f], K), add_bytes, "GB/s", k.arch)
        attempt(S, "ours (pallasc sm_90a)", run_ours_add)

        def handwritten():
            if drv is None:
                raise CudaError("no CUDA driver through ctypes")
            k = OurKernel(drv, os.path.join(GPU_DIR, "selftest"), "vector_add_cuda")
            o = torch.full_like(x, float("nan"))
            f = k.bind(x, y, o); f(); check_add(o, "hand-written CUDA")
            record(S, "hand-written CUDA (float4, self-test cubin)", time_stream([f], K), add_bytes,
                   "GB/s", k.arch)
        attempt(S, "hand-written CUDA (float4, self-test cubin)", handwritten)

        @triton.jit
        def add_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                     mask=mask)

        def triton_add():
            o = torch.full_like(x, float("nan"))
            f = lambda: add_kernel[(triton.cdiv(N, 1024),)](x, y, o, N, BLOCK=1024, num_warps=4)
            f(); check_add(o, "triton")
            record(S, "Triton (BLOCK 1024, 4 warps)", time_stream([f], K), add_bytes, "GB/s")
        attempt(S, "Triton (BLOCK 1024, 4 warps)", triton_add)

        def jax_add():
            import jax
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import triton as plgpu

            def kern(x_ref, y_ref, o_ref):
                o_ref[...] = x_ref[...] + y_ref[...]
            spec = pl.BlockSpec((1024,), lambda i: (i,))
            call = pl.pallas_call(kern, out_shape=jax.ShapeDtypeStruct((N,), np.float32),
                                  grid=(N // 1024,), in_specs=[spec, spec], out_specs=spec,
                                  compiler_params=plgpu.CompilerParams(num_warps=4))
            jx, jy = to_jax(x), to_jax(y)
            check_add(from_jax(jax.jit(call)(jx, jy)), "jax pallas")
            batch, args = jax_chain(call, [(jx, jy)], K)
            record(S, "JAX Pallas (block 1024, 4 warps)", time_jax(batch, args), add_bytes, "GB/s")
        attempt(S, "JAX Pallas (block 1024, 4 warps)", jax_add)
        del x, y, want
        torch.cuda.empty_cache()

    if "softmax" in sections:
        # ---------------------------------------------------------------- (b)
        S = "softmax 4096x1000 f32"
        print(f"\n{S}", flush=True)
        R, C, SETS, K = 4096, 1000, 4, 100
        xs = [torch.randn(R, C, device=dev) for _ in range(SETS)]
        wants = [torch.softmax(t, dim=1) for t in xs]
        sm_bytes = 2 * 4 * R * C

        def check_sm(outs, impl):
            torch.cuda.synchronize()
            for o, w in zip(outs, wants):
                if torch.isnan(o).any() or not torch.allclose(o, w, rtol=1e-5, atol=1e-7):
                    raise AssertionError(f"{impl}: wrong result (max err {(o - w).abs().max().item():.3g})")

        def torch_sm():
            # torch.softmax has no out=; the op itself is timed, allocation included.
            fns = [lambda i=i: torch.softmax(xs[i], dim=1) for i in range(SETS)]
            check_sm([f() for f in fns], "torch")
            record(S, "torch.softmax", time_stream(fns, K), sm_bytes, "GB/s")
        attempt(S, "torch.softmax", torch_sm)

        def ours_sm():
            k = ours(drv, "softmax", S)
            if k is None:
                return
            outs = [torch.full_like(t, float("nan")) for t in xs]
            fns = [k.bind(xs[i], outs[i]) for i in range(SETS)]
            for f in fns:
                f()
            check_sm(outs, "ours")
            record(S, "ours (pallasc sm_90a)", time_stream(fns, K), sm_bytes, "GB/s", k.arch)
        attempt(S, "ours (pallasc sm_90a)", ours_sm)

        @triton.jit
        def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            mask = cols < n_cols
            v = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
            v = v - tl.max(v, axis=0)
            num = tl.exp(v)
            tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)

        def triton_sm():
            outs = [torch.full_like(t, float("nan")) for t in xs]
            fns = [lambda i=i: softmax_kernel[(R,)](outs[i], xs[i], xs[i].stride(0), outs[i].stride(0),
                                                     C, BLOCK=1024, num_warps=4) for i in range(SETS)]
            for f in fns:
                f()
            check_sm(outs, "triton")
            record(S, "Triton (row per program, 4 warps)", time_stream(fns, K), sm_bytes, "GB/s")
        attempt(S, "Triton (row per program, 4 warps)", triton_sm)

        def jax_sm():
            import jax
            import jax.numpy as jnp
            from jax.experimental import pallas as pl
            from jax.experimental.pallas import triton as plgpu

            def kern(x_ref, o_ref):
                mask = jnp.arange(1024) < C
                row = plgpu.load(x_ref.at[pl.ds(0, 1024)], mask=mask, other=-float("inf"))
                num = jnp.exp(row - jnp.max(row, axis=0))
                plgpu.store(o_ref.at[pl.ds(0, 1024)], num / jnp.sum(num, axis=0), mask=mask)
            spec = pl.BlockSpec((None, C), lambda i: (i, 0))
            call = pl.pallas_call(kern, out_shape=jax.ShapeDtypeStruct((R, C), np.float32),
                                  grid=(R,), in_specs=[spec], out_specs=spec,
                                  compiler_params=plgpu.CompilerParams(num_warps=4, num_stages=1))
            jxs = [to_jax(t) for t in xs]
            check_sm([from_jax(jax.jit(call)(j)) for j in jxs], "jax pallas")
            batch, args = jax_chain(call, [(j,) for j in jxs], K)
            record(S, "JAX Pallas (row per program, 4 warps)", time_jax(batch, args), sm_bytes, "GB/s")
        attempt(S, "JAX Pallas (row per program, 4 warps)", jax_sm)
        del xs, wants
        torch.cuda.empty_cache()

    if "matmul" in sections:
        matmul(drv)
        matmul(drv, dtype=torch.float16)
        matmul(drv, M=8192, N=8192, K=8192)
        matmul(drv, dtype=torch.float16, M=8192, N=8192, K=8192)
        matmul(drv, M=8192, N=8192, K=1024)
    if "f8" in sections:
        matmul_f8(drv)

    if "attention" in sections:
        attention(drv)
        attention(drv, causal=True)
        attention(drv, dtype=torch.float16)
        attention(drv, causal=True, dtype=torch.float16)
        attention(drv, L=8192)
        attention(drv, D=64)
    if "attention_d256" in sections:
        attention(drv, D=256)
    if "attention_f8" in sections:
        attention_f8(drv)
        attention_f8(drv, L=16384, BH=16)
        attention_f8(drv, D=256)
        attention_f8(drv, L=16384, BH=16, D=256)
    write_table()


LOG2E = 1.4426950408889634


# A fused attention forward in the style of Triton's tutorial 06: one program
# per (128-row query block, batch*head), online softmax in base 2 (the softmax
# scale folded into log2(e), so each score costs one FMA before its exp2), K
# and V walked in BN-row blocks. Causal: the blocks left of the diagonal run
# unmasked, their count set by the program id; the diagonal block alone is
# masked, and blocks right of it are never loaded. At module level, as
# Triton resolves the helper through the module's globals.
@triton.jit
def attn_kv_blocks(acc, m_i, l_i, q, k_base, v_base, offs_m, lo, hi, qk_scale,
                   D: tl.constexpr, BN: tl.constexpr, MASKED: tl.constexpr):
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    for start in range(lo, hi, BN):
        kb = tl.load(k_base + (start + offs_n)[:, None] * D + offs_d[None, :])
        s = tl.dot(q, tl.trans(kb))
        if MASKED:
            # A finite fill, not -inf: a row whose block is masked whole
            # keeps a finite max, so exp2 never sees -inf - -inf.
            s = tl.where(offs_m[:, None] >= (start + offs_n)[None, :], s * qk_scale, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(s, 1))
            s = s - m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            s = s * qk_scale - m_new[:, None]
        p = tl.math.exp2(s)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        vb = tl.load(v_base + (start + offs_n)[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(vb.dtype), vb, acc * alpha[:, None])
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, L,
             BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * L * D  # [B*H, L, D], contiguous
    k_base, v_base = k_ptr + base, v_ptr + base
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    if CAUSAL:
        acc, m_i, l_i = attn_kv_blocks(acc, m_i, l_i, q, k_base, v_base, offs_m,
                                       0, start_m * BM, qk_scale, D, BN, False)
        acc, m_i, l_i = attn_kv_blocks(acc, m_i, l_i, q, k_base, v_base, offs_m,
                                       start_m * BM, (start_m + 1) * BM, qk_scale, D, BN, True)
    else:
        acc, m_i, l_i = attn_kv_blocks(acc, m_i, l_i, q, k_base, v_base, offs_m,
                                       0, L, qk_scale, D, BN, False)
    o = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], o.to(o_ptr.dtype.element_ty))


def ours_triton(art, *tensors):
    """Our Triton-target artifact in `art`: its .ttir compiled by
    triton.compile with the manifest's num_warps and num_stages (as
    bench/run_triton_vs_host.py does), bound to `tensors` (manifest order)
    and launched with the manifest's grid on torch's current stream.
    Returns the launcher and a note."""
    from triton.backends.compiler import GPUTarget
    m = json.load(open(glob.glob(os.path.join(art, "*.manifest.json"))[0]))
    L = m["launch"]
    for t, p in zip(tensors, m["parameters"]):
        if list(t.shape) != p["shape"]:
            raise RuntimeError(f"{p['name']}: shape {list(t.shape)} vs manifest {p['shape']}")
    cap = torch.cuda.get_device_capability()
    kern = triton.compile(glob.glob(os.path.join(art, "*.ttir"))[0],
                          target=GPUTarget("cuda", cap[0] * 10 + cap[1], 32),
                          options={"num_warps": L["num_warps"], "num_stages": L["num_stages"]})
    run = kern[tuple(L["grid"])]  # picks torch's current stream at each call
    return (lambda: run(*tensors)), f"{L['num_warps']} warps, {L['num_stages']} stages"


def time_triton_target(section, case, inputs, out_shape, out_dtype, check, reps, work):
    """Our triton target's .ttir of `case`, where prepare.sh compiled the case
    for it (TARGETS): bound to `inputs` and a NaN-filled output of
    `out_shape`, checked by `check(output, label)` (its note) and timed as
    "ours via triton target (<case>)"."""
    art = os.path.join(GPU_DIR, case, "triton")
    if not (os.path.isdir(art) or os.path.exists(art + ".error")):
        return
    label = f"ours via triton target ({case})"

    def run():
        if not os.path.isdir(art):
            failed(section, label, not_compiled(case, "triton"))
            return
        o = torch.full(out_shape, float("nan"), device=dev, dtype=out_dtype)
        f, cfg = ours_triton(art, *inputs, o)
        f(); note = check(o, label)
        record(section, label, time_stream([f], reps), work, "TFLOP/s", cfg + ", " + note)
    attempt(section, label, run)


def record_best(section, impl, tries, work):
    """tries: (config, run) pairs; run() checks its output and returns (times,
    note). Records the fastest config, as the references are autotuned over
    such lists; a config that does not build or launch is named in the note,
    a wrong result fails the row."""
    best, bad, first = None, [], None
    for cfg, run in tries:
        try:
            times, note = run()
        except WrongResult:
            raise
        except Exception as e:
            bad.append(f"{cfg}: {type(e).__name__}")
            first = first or e
            if os.environ.get("BENCH_TRACEBACK"):
                traceback.print_exc()
            continue
        if best is None or statistics.median(times) < statistics.median(best[1]):
            best = (cfg, times, note)
    if best is None:
        raise first
    note = f"{best[0]}, {best[2]}" + (f" (failed: {'; '.join(bad)})" if bad else "")
    record(section, impl, best[1], work, "TFLOP/s", note)


# Triton's tutorial matmul (03): grouped program order (GROUP rows of
# output tiles per group), masked edge stores. At module level, as Triton
# resolves its globals there.
@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    npm, npn = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per_group = GROUP * npn
    first_m = (pid // per_group) * GROUP
    gsize = min(npm - first_m, GROUP)
    pm = first_m + ((pid % per_group) % gsize)
    pn = (pid % per_group) // gsize
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    ap = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    bp = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(ap), tl.load(bp), acc)
        ap += BK * sak
        bp += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def matmul(drv, dtype=torch.bfloat16, M=4096, N=4096, K=4096):
    """(c) GEMM M x N x K (f32 accumulate, output in the input dtype): ours
    against torch.matmul (cuBLAS) and Triton's tutorial matmul; at bf16
    4096^3 also the conformance matmul_kloop (128x128 tiles), the other
    tilings in bench/kernels/matmul_kloop_* and JAX Pallas. Our kernel for a
    shape is bench/kernels/gemm_<dtype>_<M> (cubes) or
    gemm_<dtype>_<M>x<N>x<K>."""
    dname = "bf16" if dtype == torch.bfloat16 else "f16"
    cube = M == N == K
    S = f"matmul {dname} {M}^3" if cube else f"matmul {dname} {M}x{N}x{K}"
    print(f"\n{S}", flush=True)
    a = torch.randn(M, K, device=dev).to(dtype)
    b = torch.randn(K, N, device=dev).to(dtype)
    want = (a.float() @ b.float())
    flops, reps = 2 * M * N * K, 10

    check_mm = lambda o, impl: check_normwise(o, want, impl)

    def torch_mm():
        o = torch.empty(M, N, device=dev, dtype=dtype)
        torch.matmul(a, b, out=o); note = check_mm(o, "torch")
        record(S, "torch.matmul (cuBLAS)", time_stream([lambda: torch.matmul(a, b, out=o)], reps),
               flops, "TFLOP/s", note)
    attempt(S, "torch.matmul (cuBLAS)", torch_mm)

    def ours_mm(case, label):
        k = ours(drv, case, S, label)
        if k is None:
            return
        o = torch.full((M, N), float("nan"), device=dev, dtype=dtype)
        f = k.bind(a, b, o); f(); note = check_mm(o, label)
        if "sizes" in k.m:
            # One artifact, other sizes too: edges that overhang the tiles.
            for m2, n2 in [(M - 16 * 7, N - 16 * 5), (272, 48)]:
                o2 = torch.full((m2, n2), float("nan"), device=dev, dtype=dtype)
                k.bind(a[:m2].contiguous(), b[:, :n2].contiguous(), o2)()
                check_normwise(o2, want[:m2, :n2], f"{label} at {m2}x{n2}x{K}")
            note += f"; symbolic M, N, also right at {M - 112}x{N - 80} and 272x48"
        if k.m["launch"].get("persistent"):
            # Persistent CTAs compute the same with any grid: 7 of them too.
            few = few_ctas(k)
            grid, k.grid = k.grid, [few, 1, 1]
            o.fill_(float("nan")); k.bind(a, b, o)(); check_mm(o, label + f" on {few} CTAs")
            k.grid = grid
            note += f"; persistent, also right on {few} CTAs"
        if k.m["launch"].get("cluster", [1])[0] > 1:
            note += f"; {k.grid[0]} CTAs in clusters of {k.m['launch']['cluster'][0]}"
        record(S, label, time_stream([f], reps), flops, "TFLOP/s", k.arch + ", " + note)

    shape = str(M) if cube else f"{M}x{N}x{K}"
    base = f"gemm_{dname}_{shape}"
    cases = [(base, "ours (pallasc sm_90a, 128x256)")]
    # (variants.sh's compiles of it with other flags: <case>_<suffix>)
    cases += [(c, f"ours ({c})") for c in sorted(os.listdir(GPU_DIR)) if c.startswith(base + "_")]
    if dname == "bf16" and cube and M == 4096:
        # The conformance kernel, then other tilings of the same GEMM.
        cases = [("matmul_kloop", "ours (pallasc sm_90a)")]
        cases += [(c, f"ours ({c})") for c in sorted(os.listdir(GPU_DIR))
                  if c.startswith("matmul_kloop_")]
    for case, label in cases:
        attempt(S, label, lambda case=case, label=label: ours_mm(case, label))

    def triton_mm():
        o = torch.full((M, N), float("nan"), device=dev, dtype=dtype)
        f = lambda: mm_kernel[(triton.cdiv(M, 128) * triton.cdiv(N, 256),)](
            a, b, o, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            o.stride(0), o.stride(1), BM=128, BN=256, BK=64, GROUP=8, num_warps=8, num_stages=3)
        f(); note = check_mm(o, "triton")
        record(S, "Triton (128x256x64, 8 warps, 3 stages)", time_stream([f], reps), flops, "TFLOP/s", note)
    attempt(S, "Triton (128x256x64, 8 warps, 3 stages)", triton_mm)

    def jax_mm():
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import triton as plgpu
        BM = BN = 128
        BK = 64

        def kern(x_ref, y_ref, o_ref):
            def body(k, acc):
                xa = x_ref[:, pl.ds(k * BK, BK)]
                yb = y_ref[pl.ds(k * BK, BK), :]
                return acc + jnp.dot(xa, yb, preferred_element_type=jnp.float32)
            acc = jax.lax.fori_loop(0, K // BK, body, jnp.zeros((BM, BN), jnp.float32))
            o_ref[...] = acc.astype(o_ref.dtype)
        call = pl.pallas_call(
            kern, out_shape=jax.ShapeDtypeStruct((M, N), to_jax(a[:1, :1]).dtype),
            grid=(M // BM, N // BN),
            in_specs=[pl.BlockSpec((BM, K), lambda i, j: (i, 0)),
                      pl.BlockSpec((K, BN), lambda i, j: (0, j))],
            out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),
            compiler_params=plgpu.CompilerParams(num_warps=8, num_stages=3))
        ja, jb = to_jax(a), to_jax(b)
        note = check_mm(from_jax(jax.jit(call)(ja, jb)), "jax pallas")
        batch, args = jax_chain(call, [(ja, jb)], reps)
        record(S, "JAX Pallas (128x128x64, 8 warps, 3 stages)", time_jax(batch, args), flops,
               "TFLOP/s", note)
    if dname == "bf16" and cube and M == 4096:
        attempt(S, "JAX Pallas (128x128x64, 8 warps, 3 stages)", jax_mm)
    del a, b, want
    torch.cuda.empty_cache()


def matmul_f8(drv, M=8192, N=8192, K=8192):
    """(c') fp8 GEMM: x [M, K] and y [N, K] in f8E4M3FN, per-tensor scales,
    f32 accumulate, bf16 out: ours (bench/kernels/gemm_f8_<M>) against
    torch._scaled_mm (cuBLASLt; y K-major, as it wants its second operand)
    and Triton's tutorial matmul on the same fp8 operands (unscaled)."""
    S = f"matmul f8E4M3FN {M}^3 (scaled, bf16 out)" if M == N == K else \
        f"matmul f8E4M3FN {M}x{N}x{K} (scaled, bf16 out)"
    print(f"\n{S}", flush=True)
    f8 = torch.float8_e4m3fn
    a = torch.randn(M, K, device=dev).to(f8)
    b = torch.randn(N, K, device=dev).to(f8)
    scale_x, scale_y = 0.37, 1.9
    scales = torch.tensor([scale_x, scale_y], device=dev, dtype=torch.float32)
    sx = torch.tensor(scale_x, device=dev, dtype=torch.float32)
    sy = torch.tensor(scale_y, device=dev, dtype=torch.float32)
    unscaled = a.float() @ b.float().T
    want = unscaled * (scale_x * scale_y)
    flops, reps = 2 * M * N * K, 10

    def scaled_mm():
        f = lambda: torch._scaled_mm(a, b.T, scale_a=sx, scale_b=sy, out_dtype=torch.bfloat16)
        note = check_normwise(f(), want, "torch._scaled_mm")
        record(S, "torch._scaled_mm (cuBLASLt)", time_stream([f], reps), flops, "TFLOP/s", note)
    attempt(S, "torch._scaled_mm (cuBLASLt)", scaled_mm)

    def ours_mm(case, label):
        k = ours(drv, case, S, label)
        if k is None:
            return
        o = torch.full((M, N), float("nan"), device=dev, dtype=torch.bfloat16)
        f = k.bind(scales, a, b, o); f(); note = check_normwise(o, want, label)
        if k.m["launch"].get("persistent"):
            few = few_ctas(k)
            grid, k.grid = k.grid, [few, 1, 1]
            o.fill_(float("nan")); k.bind(scales, a, b, o)(); check_normwise(o, want, label + f" on {few} CTAs")
            k.grid = grid
            note += f"; persistent, also right on {few} CTAs"
        if k.m["launch"].get("cluster", [1])[0] > 1:
            note += f"; {k.grid[0]} CTAs in clusters of {k.m['launch']['cluster'][0]}"
        record(S, label, time_stream([f], reps), flops, "TFLOP/s", k.arch + ", " + note)

    base = f"gemm_f8_{M}" if M == N == K else f"gemm_f8_{M}x{N}x{K}"
    cases = [(base, "ours (pallasc sm_90a, 128x256x128)")]
    cases += [(c, f"ours ({c})") for c in sorted(os.listdir(GPU_DIR)) if c.startswith(base + "_")]
    for case, label in cases:
        attempt(S, label, lambda case=case, label=label: ours_mm(case, label))

    # Our triton target's .ttir of the same kernel, compiled by Triton.
    time_triton_target(S, base, (scales, a, b), (M, N), torch.bfloat16,
                       lambda o, label: check_normwise(o, want, label), reps, flops)

    def triton_mm():
        o = torch.full((M, N), float("nan"), device=dev, dtype=torch.bfloat16)
        bt = b.T  # [K, N], K-major
        f = lambda: mm_kernel[(triton.cdiv(M, 128) * triton.cdiv(N, 256),)](
            a, bt, o, M, N, K, a.stride(0), a.stride(1), bt.stride(0), bt.stride(1),
            o.stride(0), o.stride(1), BM=128, BN=256, BK=128, GROUP=8, num_warps=8, num_stages=4)
        f(); note = check_normwise(o, unscaled, "triton")
        record(S, "Triton (128x256x128, 8 warps, 4 stages; unscaled)", time_stream([f], reps),
               flops, "TFLOP/s", note)
    attempt(S, "Triton (128x256x128, 8 warps, 4 stages; unscaled)", triton_mm)
    del a, b, unscaled, want
    torch.cuda.empty_cache()


def attention(drv, causal=False, dtype=torch.bfloat16, L=4096, D=128):
    """(d) flash attention forward: B*H = 64, S = L, D
    (bench/kernels/flash_attention[_causal][_f16][_d64|_d256]_s4096 and
    flash_attention_s8192, the plain Pallas formulation) against torch SDPA with each backend pinned, a Triton fused
    attention (tutorial style), JAX Pallas's attention (Triton backend) and
    its Mosaic GPU attention, and our Triton-target artifact where
    prepare.sh compiled one. Checked against SDPA in f32 (math backend).
    Causal work counts half the square."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dname = "bf16" if dtype == torch.bfloat16 else "f16"
    S = f"flash attention {dname} {'causal ' if causal else ''}B*H=64 S={L} D={D}"
    print(f"\n{S}", flush=True)
    B, H = 4, 16
    sm_scale = 1 / math.sqrt(D)
    q, k, v = (torch.randn(B, H, L, D, device=dev).to(dtype) for _ in range(3))
    sdpa = lambda *a: torch.nn.functional.scaled_dot_product_attention(*a, is_causal=causal)
    with sdpa_kernel(SDPBackend.MATH):
        # One batch at a time: the math backend holds the whole score matrix.
        want = torch.cat([sdpa(q[b:b + 1].float(), k[b:b + 1].float(), v[b:b + 1].float())
                          for b in range(B)])
    flops, K = 4 * B * H * L * L * D // (2 if causal else 1), 5

    check = lambda o, impl: check_normwise(o, want, impl)

    for backend, name in [(SDPBackend.CUDNN_ATTENTION, "cuDNN"),
                          (SDPBackend.FLASH_ATTENTION, "flash")]:
        def pinned(backend=backend, name=name):
            impl = f"torch SDPA ({name})"
            with sdpa_kernel(backend):
                f = lambda: sdpa(q, k, v)
                note = check(f(), impl)
                record(S, impl, time_stream([f], K), flops, "TFLOP/s", note)
        attempt(S, f"torch SDPA ({name})", pinned)

    impl = "Triton (tutorial-style fused attention)"

    def triton_fa():
        o = torch.empty_like(q)

        def run(bn, stages):
            f = lambda: attn_fwd[(L // 128, B * H)](q, k, v, o, sm_scale * LOG2E, L, BM=128, BN=bn,
                                                D=D, CAUSAL=causal, num_warps=8, num_stages=stages)
            o.fill_(float("nan")); f(); note = check(o, impl)
            return time_stream([f], K), note
        # BLOCK_N 128 with 3 stages needs 224 KiB of shared memory (fits an
        # H100/H200, 227 KiB); 64 needs 128 KiB.
        record_best(S, impl, [(f"BM 128, BN {bn}, 8 warps, {st} stages", lambda bn=bn, st=st: run(bn, st))
                              for bn, st in [(64, 3), (128, 3)]], flops)
    attempt(S, impl, triton_fa)

    # JAX's attention ops take [batch, seq, heads, head_dim]: transposed once,
    # outside the timed region; outputs transposed back for the check.
    jin = {}

    def jax_in(name, t):
        if name not in jin:
            jin[name] = to_jax(t.transpose(1, 2).contiguous())
        return jin[name]
    check_jax = lambda out, impl: check(from_jax(out).transpose(1, 2), impl)

    def jax_triton():
        import jax
        from jax.experimental.pallas.ops.gpu import attention as pa
        impl = "JAX Pallas (Triton backend)"
        call = lambda q_, k_, v_: pa.mha(q_, k_, v_, segment_ids=None, sm_scale=sm_scale,
                                         causal=causal)
        args = (jax_in("q", q), jax_in("k", k), jax_in("v", v))
        note = check_jax(jax.jit(call)(*args), impl)
        batch, bargs = jax_chain(call, [args], K)
        try:
            d = pa.BlockSizes.get_default()
            cfg = f"default blocks {d.block_q}x{d.block_k}"
        except Exception:
            cfg = "default blocks"
        record(S, impl, time_jax(batch, bargs), flops, "TFLOP/s", cfg + ", " + note)
    attempt(S, "JAX Pallas (Triton backend)", jax_triton)

    def jax_mosaic():
        import jax
        from jax.experimental.pallas.ops.gpu import attention_mgpu as mg
        impl = "JAX Pallas (Mosaic GPU)"
        # This kernel applies no softmax scale: q is scaled (in f32, then
        # rounded) before it is handed over.
        args = (jax_in("q_scaled", (q.float() * sm_scale).to(dtype)), jax_in("k", k), jax_in("v", v))

        def run(block_kv):
            config = mg.TuningConfig(block_q=64, block_kv=block_kv, max_concurrent_steps=2,
                                     causal=causal)
            call = functools.partial(mg.attention, config=config)
            note = check_jax(jax.jit(call)(*args), impl)
            batch, bargs = jax_chain(call, [args], K)
            return time_jax(batch, bargs), note
        # The block sizes its own benchmark sweeps (block_q 64 per compute
        # warpgroup, two of them per program).
        record_best(S, impl, [(f"block_q 64, block_kv {bkv}, 2 steps", lambda bkv=bkv: run(bkv))
                              for bkv in (256, 128, 64)], flops)
    attempt(S, "JAX Pallas (Mosaic GPU)", jax_mosaic)
    del jin

    prefix = "flash_attention_" + ("causal_" if causal else "") + \
        ("f16_" if dtype == torch.float16 else "") + (f"d{D}_" if D != 128 else "") + f"s{L}"
    cases = sorted(c for c in os.listdir(GPU_DIR) if c.startswith(prefix))
    q3, k3, v3 = (t.reshape(B * H, L, D) for t in (q, k, v))

    def time_ours(kern, label):
        o = torch.full((B * H, L, D), float("nan"), device=dev, dtype=dtype)
        f = kern.bind(q3, k3, v3, o)
        f(); note = check(o.reshape(B, H, L, D), label)
        record(S, label, time_stream([f], K), flops, "TFLOP/s", kern.arch + ", " + note)

    for case in cases:
        label = "ours (pallasc sm_90a)" if case == prefix else f"ours ({case})"

        def run(case=case, label=label):
            kern = ours(drv, case, S, label)
            if kern is not None:
                time_ours(kern, label)
        attempt(S, label, run)

    # Our sm_80 code (mma.sync, cp.async) on this GPU: prepare.sh assembles
    # its PTX for sm_90 (sm_80_on_sm_90/), where TARGETS has sm_80; beside
    # torch's flash backend (FlashAttention-2, the same kind of code).
    for case in cases:
        for art in sorted(glob.glob(os.path.join(GPU_DIR, case, "sm_80_on_sm_90*"))):
            tag = os.path.basename(art)[len("sm_80_on_sm_90"):].replace("_", " ").strip()
            label = f"ours (sm_80 code{', ' + tag if tag else ''}, {case})"

            attempt(S, label, lambda art=art, label=label: time_ours(OurKernel(drv, art), label))

    # Our Triton target, where prepare.sh compiled the case for it (TARGETS).
    for case in cases:
        time_triton_target(S, case, (q3, k3, v3), (B * H, L, D), dtype,
                           lambda o, label: check(o.reshape(B, H, L, D), label), K, flops)
    del q, k, v, q3, k3, v3, want
    torch.cuda.empty_cache()


def attention_f8(drv, L=4096, BH=64, D=128):
    """(d') fp8 flash attention forward (bench/kernels/flash_attention_f8_s<L>):
    Q, K and V^T in f8E4M3FN with per-tensor descales, bf16 out, as FA3 takes
    them; beside torch SDPA (cuDNN, bf16) on the same values. Checked against
    SDPA in f32 (math backend) on the dequantized f8 values; the kernel rounds
    the probabilities to f8, hence the looser tolerance (4e-2 normwise)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    S = f"flash attention f8E4M3FN B*H={BH} S={L} D={D}"
    print(f"\n{S}", flush=True)
    f8 = torch.float8_e4m3fn
    descale = [0.9, 1.7, 1.3]
    q8, k8, v8 = (torch.randn(BH, L, D, device=dev).to(f8) for _ in range(3))
    vt8 = v8.transpose(1, 2).contiguous()
    scales = torch.tensor(descale, device=dev, dtype=torch.float32)
    qf, kf, vf = (t.float() * d for t, d in zip((q8, k8, v8), descale))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    with sdpa_kernel(SDPBackend.MATH):
        want = torch.cat([sdpa(qf[b:b + 4], kf[b:b + 4], vf[b:b + 4]) for b in range(0, BH, 4)])
    flops, K = 4 * BH * L * L * D, 5
    check = lambda o, impl: check_normwise(o, want, impl, tol=4e-2)

    def cudnn():
        impl = "torch SDPA (cuDNN, bf16 of the same values)"
        qb, kb, vb = (t.to(torch.bfloat16)[None] for t in (qf, kf, vf))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            f = lambda: sdpa(qb, kb, vb)
            note = check(f()[0], impl)
            record(S, impl, time_stream([f], K), flops, "TFLOP/s", note)
    attempt(S, "torch SDPA (cuDNN, bf16 of the same values)", cudnn)

    base = "flash_attention_f8" + ("" if D == 128 else f"_d{D}")
    case = f"{base}_s{L}"
    # Variants written for a measurement: <base>_<what>_s<L>.
    variants = sorted(c for c in os.listdir(GPU_DIR)
                      if c.startswith(base + "_") and c.endswith(f"_s{L}") and c != case and
                      (D != 128 or not re.match(r"flash_attention_f8_d\d+_", c)))

    def run_ours(case, label):
        kern = ours(drv, case, S, label)
        if kern is None:
            return
        o = torch.full((BH, L, D), float("nan"), device=dev, dtype=torch.bfloat16)
        f = kern.bind(scales, q8, k8, vt8, o)
        f(); note = check(o, label)
        record(S, label, time_stream([f], K), flops, "TFLOP/s", kern.arch + ", " + note)
    for c, label in [(case, "ours (pallasc sm_90a)")] + [(v, f"ours ({v})") for v in variants]:
        attempt(S, label, lambda c=c, label=label: run_ours(c, label))

    time_triton_target(S, case, (scales, q8, k8, vt8), (BH, L, D), torch.bfloat16, check, K,
                       flops)
    del q8, k8, v8, vt8, qf, kf, vf, want
    torch.cuda.empty_cache()


def ratio_table(rows, ratio_header, ratio_suffix, name):
    """A markdown table of (kernel, implementation, median ms, TFLOP/s,
    ratio) rows, printed and written to $OUT/`name` when OUT is set (the
    GPU checks beside bench.py: mgpu.py, gemm_forms.py)."""
    table = [f"| kernel | implementation | median ms | TFLOP/s | {ratio_header} |",
             "|---|---|---|---|---|"]
    table += [f"| {c} | {i} | {m:.3f} | {tf:.0f} | {r:.2f}{ratio_suffix} |"
              for c, i, m, tf, r in rows]
    print("\n".join(table))
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], name), "w") as f:
            f.write("\n".join(table) + "\n")


def write_table():
    out = [f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}; "
           f"{REPS} batches per row, median and min of the time per launch.", ""]
    for section in dict.fromkeys(r[0] for r in rows):
        rs = [r for r in rows if r[0] == section]
        # "ours" in the speed column is the CUDA target, not "ours via triton target".
        mine = next((r for r in rs if r[1].startswith("ours") and not r[1].startswith("ours via")
                     and r[2] is not None), None)
        copy = next((r for r in rs if r[1].startswith("torch copy_") and r[2] is not None), None)
        out.append(f"### {section}")
        out.append("")
        head = "| implementation | median us | min us | rate | ours' speed vs this |"
        if copy:
            head += " bandwidth / copy's |"
        out += [head, "|" + "---|" * (head.count("|") - 1)]
        for r in rs:
            if r[2] is None:
                line = f"| {r[1]} | {r[6]} | | | |" + (" |" if copy else "")
            else:
                vs = f"{r[2] / mine[2]:.2f}x" if mine and r is not mine and not r[1].startswith("torch copy_") else "-"
                line = f"| {r[1]} | {r[2] * 1e3:.1f} | {r[3] * 1e3:.1f} | {r[4]:.1f} {r[5]} | {vs} |"
                if copy:
                    line += f" {r[4] / copy[4]:.2f} |"
            out.append(line)
        notes = [f"{r[1]}: {r[6]}" for r in rs if r[2] is not None and r[6]]
        if notes:
            out += [""] + ["- " + n for n in notes]
        out.append("")
    out.append("ours' speed vs this = this time / ours (above 1: ours is faster). "
               "Vector add counts 3x4 B per element, the copy 2x4 B; softmax 2x4 B; "
               "matmul 2*4096^3 flop; attention 4*B*H*S^2*D.")
    text = "\n".join(out)
    print("\n" + text)
    for d in [os.environ.get("OUT"), GPU_DIR]:
        if d and os.path.isdir(d):
            with open(os.path.join(d, "results.md"), "w") as f:
                f.write(text + "\n")


if __name__ == "__main__":
    if not torch.cuda.is_available():
        sys.exit("bench.py: error: no CUDA device visible to torch")
    main()
