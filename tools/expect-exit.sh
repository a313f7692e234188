#!/usr/bin/env bash
# expect-exit.sh CODE CMD...: runs CMD, passes its output through, and fails
# unless it exits with exactly CODE (tests use it to pin "exit code 1").
want="$1"; shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect-exit: '$*' exited $got, expected $want" >&2
  exit 1
fi
exit 0
