#!/usr/bin/env python3
"""Compares the cubin arrays of a CUDA launch header with the cubin files.

usage: embedded_cubins.py HEADER DIR

For every `static const unsigned char NAME_cubin_CHIP[N] = {...};` in
HEADER, checks that N is the number of bytes listed and that they are the
bytes of DIR/NAME.CHIP.cubin. Prints one line per array; exits 1 on a
mismatch or when there is no array.
"""
import os
import re
import sys


def main():
    header, out = sys.argv[1], sys.argv[2]
    with open(header) as f:
        text = f.read()
    arrays = re.findall(
        r"static const unsigned char (\w+)_cubin_(sm_\w+)\[(\d+)\] = \{([^}]*)\};", text)
    if not arrays:
        print("FAIL: no cubin array in %s" % header)
        return 1
    status = 0
    for name, chip, size, body in arrays:
        data = bytes(int(b) for b in body.replace(",", " ").split())
        path = os.path.join(out, "%s.%s.cubin" % (name, chip))
        with open(path, "rb") as f:
            cubin = f.read()
        if len(data) != int(size) or data != cubin:
            print("FAIL: %s_cubin_%s: %d bytes declared, %d listed, differ from %s" %
                  (name, chip, int(size), len(data), os.path.basename(path)))
            status = 1
        else:
            print("%s_cubin_%s: same bytes as %s" % (name, chip, os.path.basename(path)))
    return status


if __name__ == "__main__":
    sys.exit(main())
