"""On the GPU machine (bench/gpu/run.sh): the PyTorch custom ops pallasc
writes (--emit torch, in .device/gpu/torch/<kernel>/) over the sm_90a and
host builds prepare.sh made, against references computed by torch:
every output element, on CUDA (current and side streams) and on the CPU,
under torch.compile(fullgraph=True), and the errors for bad inputs.
Exit code 1 on any failure."""
import importlib
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPU = os.path.join(ROOT, ".device", "gpu")
# kernel -> (the case prepare.sh compiled it as, reference, whether it is a dot)
CASES = {
    "scale_rows": ("cmake_consumer", lambda x: x * 2 + 1, False),
    "matmul_relu": ("matmul_relu", lambda x, y: torch.relu(x.double() @ y.double()), True),
}
failures = 0


def close(got, want, dot, what):
    global failures
    got = got.cpu().double()
    want = want.cpu().double()
    if not torch.isfinite(got).all():
        print(f"FAIL {what}: an output element was not written")
        failures += 1
        return
    # f32 dots run in TF32 on the GPU (as torch's own with TF32 on): norm-wise.
    err = ((got - want).norm() / want.norm()).item() if dot else \
        ((got - want).abs() / (1 + want.abs())).max().item()
    ok = err < (5e-3 if dot else 1e-5)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {'norm-wise' if dot else 'max'} rel err {err:.1e}")


def expect_error(kind, fn, what):
    global failures
    try:
        fn()
    except kind as e:
        print(f"ok   {what}: {kind.__name__}: {e}")
        return
    except Exception as e:  # noqa: BLE001
        print(f"FAIL {what}: {type(e).__name__}: {e}")
    else:
        print(f"FAIL {what}: no error")
    failures += 1


for kernel, (case, reference, dot) in CASES.items():
    sys.path.insert(0, os.path.join(GPU, "torch", kernel))
    m = importlib.import_module(kernel + "_torch")
    m.load(os.path.join(GPU, case, "sm_90a"))
    m.load(os.path.join(GPU, case, "host"))
    op = getattr(torch.ops.pallasc, kernel)
    gen = torch.Generator().manual_seed(0)
    cpu_args = [torch.randn(shape, generator=gen).to(dtype) for _, shape, dtype in m.INPUTS]
    want = reference(*cpu_args)
    cuda_args = [a.cuda() for a in cpu_args]
    close(op(*cuda_args), want, dot, f"{kernel} cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        out = op(*cuda_args)
    side.synchronize()
    close(out, want, dot, f"{kernel} cuda, side stream")
    close(op(*cpu_args), want, dot, f"{kernel} cpu")
    compiled = torch.compile(lambda *a: op(*a) + 0, fullgraph=True)
    close(compiled(*cuda_args), want, dot, f"{kernel} torch.compile(fullgraph=True)")
    bad = [a.double() for a in cuda_args]
    expect_error(TypeError, lambda: op(*bad), f"{kernel} wrong dtype")
    name, shape, dtype = m.INPUTS[0]
    wide = torch.zeros(shape[:-1] + (shape[-1] * 2,), dtype=dtype, device="cuda")[..., ::2]
    expect_error(ValueError, lambda: op(*([wide] + cuda_args[1:])), f"{kernel} not contiguous")

print(f"torch {torch.__version__}: {failures} failure(s)")
sys.exit(1 if failures else 0)
