# Sourced by the prepare scripts: sm80_on_hopper DIR assembles the PTX of
# the sm_80 artifact in DIR (…/sm_80) for sm_90 (PTX runs on later chips)
# into …/sm_80_on_sm_90/, with a manifest naming that cubin, so that our
# sm_80 code (mma.sync, cp.async) runs on the sm_90 machines like the
# sm_90a artifact. Without ptxas or PTX it leaves nothing (callers that
# need the build check for the directory).
ptxas="${PALLAS_PTXAS:-/usr/local/cuda/bin/ptxas}"
sm80_on_hopper() { # the sm_80 artifact's directory
  local from=$1 to=${1%/sm_80}/sm_80_on_sm_90 ptx
  ptx=$(ls "$from"/*.sm_80.ptx 2>/dev/null | head -1)
  [ -n "$ptx" ] && [ -x "$ptxas" ] || return 0
  rm -rf "$to" && mkdir -p "$to" && cp "$from"/*.manifest.json "$to"/ &&
    "$ptxas" -arch=sm_90 -O3 -o "$to/$(basename "${ptx%.sm_80.ptx}").sm_80_as_sm_90.cubin" "$ptx" &&
    python3 - "$to" <<'PY' || rm -rf "$to"
import glob, json, os, sys
to = sys.argv[1]
path = glob.glob(os.path.join(to, "*.manifest.json"))[0]
m = json.load(open(path))
cubin = os.path.basename(glob.glob(os.path.join(to, "*.cubin"))[0])
m["launch"]["cubins"] = {"sm_90": cubin}
json.dump(m, open(path, "w"), indent=2)
PY
}
