"""Validates specs against schemas/launch.schema.json with jsonschema."""
import glob
import json
import os
import sys

import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
print("schema ok")

valid = glob.glob(os.path.join(root, "examples", "*", "spec*.json"))
valid += glob.glob(os.path.join(os.path.dirname(root), "shared", "conformance", "*", "spec*.json"))
for path in valid:
    errors = list(validator.iter_errors(json.load(open(path))))
    if errors:
        sys.exit(f"{path}: {errors[0].message}")
print(f"accepted {len(valid)} valid spec(s)")

# Specs the schema alone can tell are wrong (the rest need the kernel or
# an affine-map parser).
invalid = ["unknown-dtype", "unknown-field", "wrong-types", "missing-fields",
           "zero-grid", "huge-grid", "block-rank", "../../Symbolic/Inputs/facts-fields", "vmap-bad",
           "semantics-bad", "vmap-axes", "scratch-bad-dtype"]
rejected = 0
for name in invalid:
    path = os.path.join(here, "Inputs", name + ".json")
    if not list(validator.iter_errors(json.load(open(path)))):
        sys.exit(f"{path}: the schema accepts it")
    rejected += 1
print(f"rejected {rejected} invalid spec(s)")
