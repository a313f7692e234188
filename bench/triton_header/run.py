"""On a GPU machine: compiles softmax.ttir with Triton, launches the cubin
from C through the generated softmax.h, and checks the result with NumPy."""
import json, os, subprocess, sys
import numpy as np
import triton
from triton.backends.compiler import GPUTarget
import torch

here = os.path.dirname(os.path.abspath(__file__))
cap = torch.cuda.get_device_capability()
m = json.load(open(os.path.join(here, "softmax.manifest.json")))
k = triton.compile(os.path.join(here, "softmax.ttir"), target=GPUTarget("cuda", cap[0] * 10 + cap[1], 32),
                   options={"num_warps": m["launch"]["num_warps"]})
open("/tmp/softmax.cubin", "wb").write(k.asm["cubin"])
x = np.random.default_rng(3).standard_normal((4096, 1000)).astype(np.float32)
x.tofile("/tmp/x.bin")
cuda = "/usr/local/cuda"
subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", here, "-isystem", f"{cuda}/include",
                os.path.join(here, "softmax_main.c"), "-L", f"{cuda}/lib64/stubs", "-lcuda", "-lpthread",
                "-o", "/tmp/softmax_main"], check=True)
subprocess.run(["/tmp/softmax_main", "/tmp/softmax.cubin", str(k.metadata.shared), "/tmp/x.bin", "/tmp/o.bin"], check=True)
o = np.fromfile("/tmp/o.bin", np.float32).reshape(4096, 1000)
e = np.exp(x - x.max(1, keepdims=True)); ref = e / e.sum(1, keepdims=True)
err = np.abs(o - ref).max()
print(f"softmax via header: max |diff| vs NumPy {err:.3g}", "MATCH" if err < 1e-5 else "MISMATCH")
