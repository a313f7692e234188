"""Runs pallasc on mutations of a valid chain manifest (seeded): every
run must end with exit code 0 (then the output holds chain.json) or 1
(then nothing is written, and stderr says error), never a crash or
another code. Prints a summary.

usage: mutate_chain.py CHAIN_DIR OUT_DIR COUNT SEED
"""
import copy
import json
import os
import random
import shutil
import subprocess
import sys

chain_dir, out_dir, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
base = json.load(open(os.path.join(chain_dir, "chain.json")))
rng = random.Random(seed)
ODD = [None, True, -1, 0, 1, 7, 2 ** 63, 2 ** 64, -(2 ** 63), 1e30, 0.5, "", "x", "../x",
       "a/b", "/abs", [], {}, [0], {"input": 0}, {"kernel": "nope", "output": 0}]


def nodes(x, path=()):
  yield path, x
  if isinstance(x, dict):
    for k, v in x.items():
      yield from nodes(v, path + (k,))
  elif isinstance(x, list):
    for i, v in enumerate(x):
      yield from nodes(v, path + (i,))


def mutate(doc):
  doc = copy.deepcopy(doc)
  path, node = rng.choice(list(nodes(doc)))
  if not path:
    return rng.choice(ODD)
  parent = doc
  for p in path[:-1]:
    parent = parent[p]
  key = path[-1]
  op = rng.randrange(6)
  if op == 0 and isinstance(parent, dict):
    del parent[key]
  elif op == 1 and isinstance(parent, list) and parent:
    parent.append(copy.deepcopy(parent[key]))
  elif op == 2 and isinstance(parent, list):
    parent.pop(key)
  elif op == 3:
    # Nested lists, written out as text (json.dump recurses).
    parent[key] = f"__DEEP{rng.choice([1, 20, 5000])}__"
  elif op == 4 and isinstance(node, int) and not isinstance(node, bool):
    parent[key] = node + rng.choice([-1, 1, 100])
  else:
    parent[key] = copy.deepcopy(rng.choice(ODD))
  return doc


codes = {}
for n in range(count):
  doc = mutate(base)
  path = os.path.join(chain_dir, f"mutant{n}.json")
  text = json.dumps(doc)
  for depth in (1, 20, 5000):
    text = text.replace(f'"__DEEP{depth}__"', "[" * depth + "0" + "]" * depth)
  with open(path, "w") as f:
    f.write(text)
  out = os.path.join(out_dir, f"m{n}")
  r = subprocess.run(["pallasc", path, "-t", "triton", "-o", out], capture_output=True,
                     text=True)
  codes[r.returncode] = codes.get(r.returncode, 0) + 1
  if r.returncode == 0:
    assert os.path.isfile(os.path.join(out, "chain.json")), (n, "no chain.json")
    shutil.rmtree(out)
  elif r.returncode == 1:
    assert not os.path.exists(out), (n, "an error left", out)
    assert "error" in r.stderr and "Stack dump" not in r.stderr, (n, r.stderr[-2000:])
  else:
    sys.exit(f"mutant {n} ({path}): exit code {r.returncode}\n{r.stderr[-2000:]}")
  os.remove(path)
print(f"{count} mutants: exit codes {sorted(codes)}; no crash")
