#!/usr/bin/env python3
"""GPU check, step 2a (bench/gpu/run.sh runs it): for each case that
bench/gpu/prepare.sh compiled into .device/gpu/, runs the host artifact and the
sm_90a artifact (and the sm_80 code assembled for sm_90, sm_80_on_sm_90/)
through pallas-launch on the same seeded random non-zero
inputs, compares every output element, fails on NaN left in an output (the
launcher poisons outputs, so NaN is an element never written), and runs the
GPU launch again under compute-sanitizer memcheck and racecheck. First it checks the
launcher's CUDA path on the hand-written self-test artifact
(.device/gpu/selftest). Prints a table (also to $OUT/check.md when OUT is set);
exits 1 if anything failed.

Without a GPU it still runs every host artifact and reports
"sm_90a: not compiled" / "no GPU" where that applies.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGETS = ("host", "sm_90a", "sm_80")
NO_DRIVER = "cannot load the CUDA driver"
sys.path.insert(0, os.path.dirname(HERE))
from dtypes import NPY as NP, from_float, to_float  # noqa: E402  every dialect dtype


def find_launcher(given):
    for c in [given, os.environ.get("PALLAS_LAUNCH"),
              "/tmp/pallas-launch-build/bin/pallas-launch",
              os.path.join(ROOT, "build", "bin", "pallas-launch")]:
        if c and os.path.exists(c):
            return c
    sys.exit("check.py: error: no pallas-launch (build runtime/ or pass --launcher)")


def group_tables(case, rng):
    """The grouped GEMM examples' scalar-prefetch tables (group ids, row
    tiles or first rows, group offsets), valid ones as
    test/numeric/check.py makes them: random integers would name rows
    outside every group, which the kernels leave unwritten."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "numeric_check", os.path.join(ROOT, "test", "numeric", "check.py"))
    numeric = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(numeric)
    make = (numeric.grouped_matmul_rows_inputs if case == "grouped_matmul_rows"
            else numeric.grouped_matmul_inputs)
    return list(make(rng)[:3])


def make_inputs(case, params, rng):
    """The input rules of bench/run_triton_vs_host.py: random non-zero floats;
    gather indices partly out of range; the grouped GEMMs' valid tables."""
    arrays = []
    tables = group_tables(case, rng) if case.startswith("grouped_matmul") else []
    for p in params:
        if p["role"] == "output":
            continue
        shape, dt = p["shape"], p["dtype"]
        if dt in ("i32", "i64", "i16", "i8") and tables:
            a = np.asarray(tables.pop(0), NP[dt]).reshape(shape)
        elif dt in ("i32", "i64", "i16", "i8"):
            if case == "gather_oob":  # unique, some out of range
                a = rng.permutation(110)[: int(np.prod(shape))] - 20
            elif case in ("gather2d", "prefetch_rows"):  # mostly in range
                a = rng.integers(-2, 34 if case == "gather2d" else 16, shape)
            elif case == "dma_pages":  # page numbers (a copy from outside x is undefined)
                a = rng.integers(0, 16, shape)
            else:
                a = rng.integers(0, 1000 if dt != "i8" else 100, shape)
            a = np.asarray(a, NP[dt]).reshape(shape)
        elif dt == "i1":
            a = rng.integers(0, 2, shape).astype(np.bool_)
        else:
            f = rng.standard_normal(shape, dtype=np.float32)
            f[np.abs(f) < 1e-3] = 0.5
            a = from_float(f, dt)
        arrays.append(a)
    return arrays


def io_args(inputs, outputs):
    """pallas-launch's file options (a kernel without inputs names none:
    an empty --inputs would take --outputs for its value)."""
    return (["--inputs", *inputs] if inputs else []) + ["--outputs", *outputs]


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"


def first_line(text, n=150):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return (lines[0] if lines else "")[:n]


def sanitize(tool, launcher, art, files, ofiles, name=None, timeout=300):
    """One launch under compute-sanitizer's `tool`: "clean" or what it found."""
    sanitizer = shutil.which("compute-sanitizer") or (
        "/usr/local/cuda/bin/compute-sanitizer"
        if os.path.exists("/usr/local/cuda/bin/compute-sanitizer") else None)
    if not sanitizer:
        return "no compute-sanitizer"
    extra = ["--racecheck-report", "hazard"] if tool == "racecheck" else []
    cmd = [sanitizer, "--tool", tool, *extra, "--error-exitcode", "9", launcher, art]
    cmd += (["--name", name] if name else []) + io_args(files, ofiles)
    rc, out, err = run(cmd, timeout)
    if rc == 0:
        return "clean"
    if rc == 9:
        errs = [l for l in (out + err).splitlines() if "=========" in l and
                ("Invalid" in l or "Error" in l or "error" in l)]
        return f"{tool} ERRORS: " + (errs[0].replace("=========", "").strip()[:120] if errs else "")
    return f"{tool} failed (rc {rc}): {first_line(out + err)}"


def memcheck(launcher, art, files, ofiles, name=None):
    """memcheck (out-of-bounds and misaligned accesses), then racecheck
    (shared-memory hazards between threads): "clean" when both are.

    racecheck cannot follow warpgroups taking turns at named barriers
    (bar.arrive on one side, bar.sync on the other): it then reports hazards
    across later __syncthreads-ordered accesses too (bench/gpu/selftest/
    racecheck_named_barriers.cu shows it on a trivially correct kernel). Such
    a kernel is racechecked as prepare.sh also compiled it, without the turns
    (<target>_racecheck/): turns only add synchronization, so a race in the
    kernel with them is one in the kernel without them."""
    twin = art.rstrip("/") + "_racecheck"
    for tool in ("memcheck", "racecheck"):
        target = twin if tool == "racecheck" and os.path.isdir(twin) else art
        result = sanitize(tool, launcher, target, files, ofiles, name)
        if result != "clean":
            return result
    return "clean" + (" (racecheck: no turns)" if os.path.isdir(twin) else "")


def compare(case, p, got, want, has_dot):
    """Returns (ok, max abs error, note)."""
    dt = p["dtype"]
    if dt in ("i32", "i64", "i16", "i8", "i1"):
        bad = int(np.count_nonzero(got != want))
        diff = 0.0 if bad == 0 else float(np.abs(got.astype(np.int64) - want.astype(np.int64)).max())
        return bad == 0, diff, f"{bad} element(s) differ" if bad else ""
    g = to_float(got, dt)
    h = to_float(want, dt)
    g = g.astype(np.float64); h = h.astype(np.float64)
    nan = int(np.isnan(g).sum())
    if nan:
        return False, float("nan"), f"{nan} NaN element(s) (never written)"
    if np.isnan(h).any():
        return False, float("nan"), "host output holds NaN"
    diff = float(np.abs(g - h).max()) if g.size else 0.0
    norm = float(np.linalg.norm(g - h) / max(np.linalg.norm(h), 1e-30))
    if dt == "bf16" or has_dot:
        ok = norm <= 1e-2
        return ok, diff, "" if ok else f"normwise error {norm:.2e} > 1e-2"
    ok = bool(np.allclose(g, h, rtol=1e-5, atol=1e-6 * max(np.abs(h).max(), 1e-30))) or norm <= 1e-5
    return ok, diff, "" if ok else f"normwise error {norm:.2e}"


def check_gpu(launcher, art, label, case, outs, host, files, tmp, has_dot, do_memcheck):
    """Runs one GPU artifact on the inputs `files` and compares every output
    with the host's. Returns ((match, memcheck, notes), failed), or
    (None, False) without a GPU."""
    gfiles = [f"{tmp}/gpu{i}.npy" for i in range(len(outs))]
    rc, _, err = run([launcher, art, *io_args(files, gfiles)], 300)
    if rc:
        if NO_DRIVER in err:
            return None, False
        return (f"{label} FAILED: " + first_line(err), "-", ""), True
    ok, worst, notes = True, 0.0, []
    for p, h, f in zip(outs, host, gfiles):
        good, diff, note = compare(case, p, np.load(f), h, has_dot)
        ok &= good
        worst = diff if np.isnan(diff) else max(worst, diff)
        if note:
            notes.append(f"{p['name']}: {note}")
    match = f"{'match' if ok else 'MISMATCH'} ({worst:.3g})"
    mc = memcheck(launcher, art, files, gfiles) if do_memcheck else "skipped"
    bad = (not ok) or not mc.startswith("clean") and mc not in ("skipped", "no compute-sanitizer")
    return (match, mc, "; ".join(notes)), bad


def check_selftest(launcher, gpu_dir, do_memcheck):
    """The launcher's CUDA path on the hand-written artifact."""
    art = os.path.join(gpu_dir, "selftest")
    if not os.path.exists(os.path.join(art, "selftest.manifest.json")):
        return ("selftest (hand-written)", "-", "no", "no", "not built", "-", "")
    rng = np.random.default_rng(11)
    x = rng.standard_normal(1000, dtype=np.float32)
    y = rng.standard_normal(1000, dtype=np.float32)
    z = rng.integers(-1000, 1000, 1000).astype(np.int32)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, a in enumerate((x, y, z)):
            files.append(f"{tmp}/in{i}.npy"); np.save(files[-1], a)
        ofiles = [f"{tmp}/o.npy", f"{tmp}/z.npy"]
        rc, out, err = run([launcher, art, "--name", "selftest", "--inputs", *files,
                            "--outputs", *ofiles, "--time", "20"], 120)
        if rc:
            what = "no GPU" if NO_DRIVER in err else "FAILED: " + first_line(err)
            return ("selftest (hand-written)", "-", "yes", "yes", what, "-", "")
        o, zo = np.load(ofiles[0]), np.load(ofiles[1])
        ok = np.allclose(o, 2 * x + y, rtol=1e-6, atol=1e-6) and np.array_equal(zo, z + np.arange(1000))
        timing = first_line(out)
        mc = memcheck(launcher, art, files, ofiles, "selftest") if do_memcheck else "skipped"
    match = ("match" if ok else "MISMATCH") + f" ({timing})"
    return ("selftest (hand-written)", "-", "yes", "yes", match, mc, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", help="pallas-launch to use")
    ap.add_argument("--dir", default=os.path.join(ROOT, ".device", "gpu"),
                    help="what prepare.sh wrote")
    ap.add_argument("--cases", nargs="*", help="only these cases")
    ap.add_argument("--no-memcheck", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    launcher = find_launcher(args.launcher)
    if not os.path.isdir(args.dir):
        sys.exit(f"check.py: error: {args.dir} does not exist; run bench/gpu/prepare.sh first")
    rows, failed = [], False
    st = check_selftest(launcher, args.dir, not args.no_memcheck)
    rows.append(st)
    failed |= "MISMATCH" in st[4] or "FAILED" in st[4] or st[5] not in ("clean", "skipped", "-", "no compute-sanitizer")
    for case_dir in sorted(glob.glob(os.path.join(args.dir, "*", ""))):
        case = os.path.basename(os.path.dirname(case_dir))
        if case == "selftest" or (args.cases and case not in args.cases):
            continue
        compiled = {t: os.path.isdir(os.path.join(case_dir, t)) for t in TARGETS}
        status = {t: "yes" if compiled[t] else
                  ("no" if os.path.exists(os.path.join(case_dir, t + ".error")) else "-")
                  for t in TARGETS}
        if not compiled["host"]:
            rows.append((case, *status.values(), "no host artifact", "-", "")); continue
        manifest = json.load(open(glob.glob(os.path.join(case_dir, "host", "*.manifest.json"))[0]))
        params = manifest["parameters"]
        if "sizes" in manifest:
            rows.append((case, *status.values(), "symbolic sizes: check_symbolic.py", "-", ""))
            continue
        outs = [p for p in params if p["role"] == "output"]
        kernel = open(os.path.join(case_dir, "kernel.mlir")).read() \
            if os.path.exists(os.path.join(case_dir, "kernel.mlir")) else ""
        has_dot = bool(re.search(r"pallas\.dot\b", kernel))
        rng = np.random.default_rng(args.seed)
        inputs = make_inputs(case, params, rng)
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for i, a in enumerate(inputs):
                files.append(f"{tmp}/in{i}.npy"); np.save(files[-1], a)
            hfiles = [f"{tmp}/host{i}.npy" for i in range(len(outs))]
            rc, _, err = run([launcher, os.path.join(case_dir, "host"), *io_args(files, hfiles)],
                             300)
            if rc:
                rows.append((case, *status.values(), "host FAILED: " + first_line(err), "-", ""))
                failed = True; continue
            host = [np.load(f) for f in hfiles]
            host_nan = [i for i, (p, h) in enumerate(zip(outs, host))
                        if p["dtype"] in ("f32", "f64", "f16") and np.isnan(h).any()]
            if not compiled["sm_90a"]:
                note = "host ran" + (f"; host output {host_nan} holds NaN" if host_nan else "")
                rows.append((case, *status.values(), "sm_90a: not compiled", "-", note))
                continue
            # The sm_90a artifact, then the sm_80 code assembled for sm_90
            # (prepare.sh's sm_80_on_sm_90/), each against the host.
            arts = [("sm_90a", os.path.join(case_dir, "sm_90a"))]
            twin = os.path.join(case_dir, "sm_80_on_sm_90")
            if os.path.isdir(twin):
                arts.append(("sm_80 code", twin))
            for label, art in arts:
                row, bad = check_gpu(launcher, art, label, case, outs, host, files, tmp,
                                     has_dot, not args.no_memcheck)
                if row is None:
                    rows.append((case, *status.values(), "no GPU", "-", ""))
                    break
                rows.append((case if label == "sm_90a" else case + " (sm_80 code)",
                             *status.values(), *row))
                failed |= bad
    head = "| case | host | sm_90a | sm_80 | match (max abs err) | memcheck, racecheck | notes |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    table = "\n".join(lines)
    print(table)
    errors = sorted(glob.glob(os.path.join(args.dir, "*", "sm_90a.error")))
    if errors:
        print(f"\n{len(errors)} case(s) without an sm_90a artifact; first message:")
        print("  " + first_line(open(errors[0]).read(), 300))
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "check.md"), "w") as f:
            f.write(table + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
