"""Prints a spec with one field set: spec_with.py SPEC PATH JSON_VALUE,
PATH dotted (`name`, `inputs.0.name`), the value as JSON text. The output
is one line, so an error's column points into it."""
import json
import sys

spec = json.load(open(sys.argv[1]))
*parents, last = [int(p) if p.isdigit() else p for p in sys.argv[2].split(".")]
node = spec
for p in parents:
    node = node[p]
node[last] = json.loads(sys.argv[3])
print(json.dumps(spec))
