#!/bin/sh
# Compiles the two benchmark kernels for the host target and times their
# launches (see bench.c). PALLASC: the compiler (default: build/bin/pallasc
# of this checkout); CC: the C compiler (default: cc); OUT: where the
# artifacts go (default: a temporary directory). Arguments go to the
# benchmark (tiny-calls big-calls).
set -e
here=$(cd "$(dirname "$0")" && pwd)
pallasc=${PALLASC:-$here/../../build/bin/pallasc}
out=${OUT:-$(mktemp -d)}
"$pallasc" "$here/tiny_add.mlir" --spec "$here/tiny_add.json" -t host -o "$out"
"$pallasc" "$here/big_add.mlir" --spec "$here/big_add.json" -t host -o "$out"
${CC:-cc} -O2 -std=c99 -Wall -Wextra -I "$out" "$here/bench.c" "$out/tiny_add.o" \
  "$out/big_add.o" -lm -lpthread -o "$out/bench"
"$out/bench" "$@"
