"""Compiles add_vectors with its first input named each of NAMES for the
host, sm_90a and triton targets (host and CUDA with --emit torch,xla-ffi),
includes each header in a C99 program under -Wall -Wextra -Werror, and
byte-compiles each torch module. Prints one line per name and target
that fails, then a count. Usage: array_name_sweep.py CONFORMANCE OUT NAMES"""
import json
import os
import py_compile
import subprocess
import sys

conformance, out, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
kernel = os.path.join(conformance, "add_vectors", "kernel.mlir")
base = json.load(open(os.path.join(conformance, "add_vectors", "spec.json")))
failed = 0
for name in names:
    spec = json.loads(json.dumps(base))
    spec["inputs"][0]["name"] = name
    spec_path = os.path.join(out, name + ".json")
    json.dump(spec, open(spec_path, "w"))
    for target in ("host", "sm_90a", "triton"):
        d = os.path.join(out, name + "_" + target)
        emit = [] if target == "triton" else ["--emit", "torch,xla-ffi"]
        steps = [["pallasc", kernel, "--spec", spec_path, "-t", target, "-o", d, *emit]]
        use = os.path.join(out, name + "_" + target + ".c")
        open(use, "w").write('#include "add_vectors.h"\nint main(void) { return 0; }\n')
        steps.append(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", d,
                      "-I/usr/local/cuda/include", use])
        for step in steps:
            r = subprocess.run(step, capture_output=True, text=True)
            if r.returncode:
                print(f"{name} {target}: {step[0]} failed: {r.stderr.strip()[:400]}")
                failed += 1
                break
        else:
            if target != "triton":
                py_compile.compile(os.path.join(d, "add_vectors_torch.py"), doraise=True)
print(f"{failed} failure(s) over {len(names)} names")
