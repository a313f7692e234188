#!/usr/bin/env python3
"""The README's support table (op x dtype x target), from the results of
the differential suite (run.py --results FILE): for each op the generated
kernels use and each target, the element types the op worked on in kernels
the target ran correctly (host) or compiled and had its consumer accept
(sm_80/sm_90a: ptxas; triton: triton.compile; tpu_v5e: jaxlib's verifier).
A dtype the target only refused (a located error: TPU block rules, Triton's
power-of-two sizes, ...) is left out.

usage: support_table.py RESULTS.json [--check README.md | --update README.md]
"""
import argparse
import json
import sys

BEGIN = "<!-- support-table:begin (test/differential/support_table.py) -->"
END = "<!-- support-table:end -->"
TARGETS = [("host", "host"), ("sm_90a,sm_80", "sm_80, sm_90a"), ("triton", "triton"),
           ("tpu_v5e", "tpu_v5e")]
DTYPES = ["f32", "bf16", "f16", "i32", "i8", "i1"]


def table(results):
    seen = {}
    for r in results:
        for op, dt in r["op_dtypes"]:
            for t, _ in TARGETS:
                cell = seen.setdefault(op, {}).setdefault(t, set())
                if r["targets"].get(t) == "ok":
                    cell.add(dt)
    lines = ["| op | " + " | ".join(name for _, name in TARGETS) + " |",
             "|---|" + "---|" * len(TARGETS)]
    for op in sorted(seen):
        cells = []
        for t, _ in TARGETS:
            dts = [d for d in DTYPES if d in seen[op][t]]
            cells.append(" ".join(dts) if dts else "—")
        lines.append("| `%s` | %s |" % (op, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", metavar="README")
    group.add_argument("--update", metavar="README")
    args = parser.parse_args()
    text = table(json.load(open(args.results))["results"])
    if not (args.check or args.update):
        sys.stdout.write(text)
        return 0
    path = args.check or args.update
    readme = open(path).read()
    if BEGIN not in readme or END not in readme:
        print("%s: no support table markers" % path)
        return 1
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + text + END + tail
    if args.update:
        open(path, "w").write(new)
        return 0
    if new != readme:
        print("%s: the support table is out of date; regenerate it with\n"
              "  test/differential/run.py --results R.json && "
              "test/differential/support_table.py R.json --update README.md" % path)
        return 1
    print("support table up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
