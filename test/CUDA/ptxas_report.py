#!/usr/bin/env python3
"""Prints what the manifest in DIR says ptxas reported, one line per chip:

  CHIP registers=R barriers=B spill_store_bytes=S spill_load_bytes=L notes=N

(N: how many wgmma notes, C75xx). usage: ptxas_report.py DIR
"""
import glob
import json
import sys

manifest = json.load(open(glob.glob(sys.argv[1] + "/*.manifest.json")[0]))
for chip, r in sorted(manifest["launch"]["ptxas"].items()):
    print(f"{chip} registers={r['registers']} barriers={r['barriers']} "
          f"spill_store_bytes={r['spill_store_bytes']} spill_load_bytes={r['spill_load_bytes']} "
          f"notes={len(r['wgmma_notes'])}")
    for note in r["wgmma_notes"]:
        print(f"{chip} note: {note}")
