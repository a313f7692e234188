#!/usr/bin/env python3
"""Checks the machine code (SASS) of a cubin pallasc wrote.

usage: sass.py CUBIN FUNCTION (--expect-hmma | --expect-no-hmma) [--print-ops A,B,...]

Disassembles CUBIN with `cuobjdump -sass` ($PALLAS_CUOBJDUMP, else the copy
pip's triton ships) and checks that FUNCTION is in it, for the
architecture the file name says (NAME.sm_XX.cubin), and that it has tensor
core instructions (HMMA: mma.sync; HGMMA: Hopper's wgmma) or none. Prints one summary line; exits 1 on
a failed check. With --print-ops, then prints each instruction whose opcode
starts with one of the given prefixes, in program order, one per line.
"""
import os
import re
import subprocess
import sys


def cuobjdump():
    path = os.environ.get("PALLAS_CUOBJDUMP")
    if path:
        return path
    import triton
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin",
                        "cuobjdump")


def main():
    ops = []
    if len(sys.argv) == 6 and sys.argv[4] == "--print-ops":
        ops = sys.argv[5].split(",")
        del sys.argv[4:]
    if len(sys.argv) != 4 or sys.argv[3] not in ("--expect-hmma", "--expect-no-hmma"):
        print(__doc__.strip().splitlines()[2])
        return 2
    cubin, function, expect = sys.argv[1], sys.argv[2], sys.argv[3]
    m = re.search(r"\.(sm_\d+a?)\.cubin$", cubin)
    if not m:
        print("FAIL: %s: no sm_XX in the file name" % cubin)
        return 1
    chip = m.group(1)
    run = subprocess.run([cuobjdump(), "-sass", cubin], capture_output=True, text=True)
    if run.returncode != 0:
        print("FAIL: cuobjdump -sass %s exited %d\n%s" % (cubin, run.returncode, run.stderr))
        return 1
    sass = run.stdout
    # Disassemblers differ in how they name the architecture ("sm_90" or
    # "sm_90a"): compare the compute capability only.
    want = chip[3:].rstrip("a")
    have = re.findall(r"^\s*code for sm_(\d+)a?\b", sass, re.M)
    if want not in have:
        print("FAIL: %s: no code for sm_%s\n%s" % (cubin, want, sass[:400]))
        return 1
    if not re.search(r"^\s*Function : %s\s*$" % re.escape(function), sass, re.M):
        print("FAIL: %s: no function %s" % (cubin, function))
        return 1
    hmma = len(re.findall(r"\bHMMA\.", sass))
    hgmma = len(re.findall(r"\bHGMMA\.", sass))
    instructions = len(re.findall(r"^\s*/\*[0-9a-f]{4,}\*/\s+\S", sass, re.M))
    if expect == "--expect-hmma" and hmma + hgmma == 0:
        print("FAIL: %s: %s has no HMMA or HGMMA instruction" % (cubin, function))
        return 1
    if expect == "--expect-no-hmma" and hmma + hgmma != 0:
        print("FAIL: %s: %s has %d tensor core instructions" % (cubin, function, hmma + hgmma))
        return 1
    kind = "HGMMA" if hgmma else "HMMA" if hmma else "no HMMA"
    print("%s %s: %s, %s" % (function, chip, kind, "code" if instructions else "EMPTY"))
    for m in re.finditer(r"^\s*/\*[0-9a-f]{4,}\*/\s+([^;]*);", sass, re.M):
        text = m.group(1).strip()
        opcode = text.split()[0] if not text.startswith("@") else text.split()[1]
        if any(opcode.startswith(op) for op in ops):
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
