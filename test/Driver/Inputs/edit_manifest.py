"""edit_manifest.py ART OUT CODE: copies the artifact directory ART to OUT
and rewrites the manifest there. CODE runs with `m` (the parsed manifest)
and `json`; the file gets `text` where CODE sets it, else `m` as JSON."""
import glob
import json
import os
import shutil
import sys

art, out, code = sys.argv[1:]
shutil.rmtree(out, ignore_errors=True)
shutil.copytree(art, out)
(path,) = glob.glob(os.path.join(out, "*.manifest.json"))
with open(path) as f:
    scope = {"m": json.load(f), "json": json}
exec(code, scope)
with open(path, "w") as f:
    f.write(scope["text"] if "text" in scope else json.dumps(scope["m"], indent=2))
