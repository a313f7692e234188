#!/usr/bin/env python3
"""Checks the manifest and artifacts pallasc wrote for CUDA targets.

usage: check_manifest.py DIR CHIP...

DIR holds one compiled kernel. The manifest must say target_kind "cuda" and
give a launch with a three-element grid, a block of 32 * num_warps threads,
the shared bytes, and one cubin per CHIP; every cubin is an ELF file, every
chip has its PTX, the header is there, and every artifact's sha256 matches
its file. Prints one summary line for FileCheck; exits 1 on the first
problem.
"""
import glob
import hashlib
import json
import os
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    if len(sys.argv) < 3:
        fail("usage: check_manifest.py DIR CHIP...")
    out, chips = sys.argv[1], sys.argv[2:]
    manifests = glob.glob(os.path.join(out, "*.manifest.json"))
    if len(manifests) != 1:
        fail("%s: expected one manifest, found %d" % (out, len(manifests)))
    with open(manifests[0]) as f:
        m = json.load(f)
    name = m["name"]
    if m.get("target_kind") != "cuda":
        fail("%s: target_kind is %r" % (name, m.get("target_kind")))
    launch = m.get("launch")
    if not isinstance(launch, dict):
        fail("%s: no launch object" % name)
    grid, block = launch.get("grid"), launch.get("block")
    if not (isinstance(grid, list) and len(grid) == 3 and
            all(isinstance(g, int) and g >= 1 for g in grid)):
        fail("%s: bad launch grid %r" % (name, grid))
    warps = m["compiler_params"]["num_warps"]
    # A producer warpgroup (TMA copies, sm_90a alone) comes on top.
    producer = 128 if launch.get("tensor_maps") else 0
    if block not in ([32 * warps, 1, 1], [32 * warps + producer, 1, 1]):
        fail("%s: block %r for num_warps %d" % (name, block, warps))
    shared = launch.get("shared_bytes")
    if not isinstance(shared, int) or shared < 0:
        fail("%s: bad shared_bytes %r" % (name, shared))
    if launch.get("function") != name:
        fail("%s: launch function %r" % (name, launch.get("function")))
    cubins = launch.get("cubins", {})
    if sorted(cubins) != sorted(chips):
        fail("%s: cubins for %s, expected %s" % (name, sorted(cubins), sorted(chips)))
    for chip in chips:
        path = os.path.join(out, cubins[chip])
        with open(path, "rb") as f:
            if f.read(4) != b"\x7fELF":
                fail("%s: %s is not an ELF file" % (name, path))
        ptx = os.path.join(out, "%s.%s.ptx" % (name, chip))
        with open(ptx) as f:
            text = f.read()
        if ".entry %s(" % name not in text or ".target %s" % chip not in text:
            fail("%s: %s lacks the entry or the target" % (name, ptx))
    if not os.path.isfile(os.path.join(out, name + ".h")):
        fail("%s: no header" % name)
    written = sorted(os.listdir(out))
    listed = sorted(list(m["artifacts"]) + [os.path.basename(manifests[0])])
    if written != listed:
        fail("%s: files %s, manifest lists %s" % (name, written, listed))
    for art, info in m["artifacts"].items():
        with open(os.path.join(out, art), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != info["sha256"]:
                fail("%s: sha256 of %s differs from the manifest" % (name, art))
    print("%s: cuda grid %s block %s shared_bytes %d cubins %s" %
          (name, grid, block, shared, " ".join(sorted(cubins))))


if __name__ == "__main__":
    main()
